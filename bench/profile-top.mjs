#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=1 or node --cpu-prof): the top frames by self
// time and by total (inclusive) time, and self time grouped by package / source file.
//   node bench/profile-top.mjs <file.cpuprofile> [--top 30] [--filter text] [--callers text]
// --callers: the stacks (8 frames up) under which frames matching `text` spend their self time.
// --sourcemaps DIR: names minified browser frames (…/assets/x.js) through DIR/x.js.map (the studio's
//   build keeps its source maps: --sourcemaps apps/studio/dist/assets).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile> [--top N] [--filter text]');
  process.exit(2);
}
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const top = Number(opt('top', 30));
const filter = opt('filter', null);
const callers = opt('callers', null);
const mapsDir = opt('sourcemaps', null);

const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// self time per node from samples × time deltas
const self = new Map();
for (let i = 0; i < prof.samples.length; i++) {
  const dt = (prof.timeDeltas[i + 1] ?? prof.timeDeltas[i] ?? 0) / 1000;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

const short = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'npm:')
    .replace(/^.*\/apps\/api\/dist\//, 'api:')
    .replace(/^.*\/libs\//, 'libs:');
const consumers = new Map();
function original(cf) {
  if (!mapsDir || !cf.url || cf.lineNumber < 0) return null;
  const m = /\/([^/?]+\.js)(?:\?.*)?$/.exec(cf.url);
  if (!m) return null;
  if (!consumers.has(m[1])) {
    const file = join(mapsDir, m[1] + '.map');
    if (!existsSync(file)) consumers.set(m[1], null);
    else {
      const { SourceMapConsumer } = createRequire(import.meta.url)('source-map-js');
      consumers.set(m[1], new SourceMapConsumer(JSON.parse(readFileSync(file, 'utf8'))));
    }
  }
  const c = consumers.get(m[1]);
  if (!c) return null;
  const pos = c.originalPositionFor({ line: cf.lineNumber + 1, column: cf.columnNumber });
  if (!pos.source) return null;
  return `${pos.name || cf.functionName || '(anonymous)'} ${pos.source.replace(/^(\.\.\/)+/, '').replace(/^.*node_modules\//, 'npm:')}:${pos.line}`;
}
const frameKey = (cf) =>
  original(cf) ?? `${cf.functionName || '(anonymous)'} ${cf.url ? `${short(cf.url)}:${cf.lineNumber + 1}` : ''}`.trim();
const groupKey = (cf) => {
  const o = original(cf);
  if (o) {
    const src = o.slice(o.indexOf(' ') + 1).replace(/:\d+$/, '');
    return src.startsWith('npm:')
      ? 'npm:' +
          src
            .slice(4)
            .split('/')
            .slice(0, src[4] === '@' ? 2 : 1)
            .join('/')
      : src;
  }
  if (!cf.url) return cf.functionName.startsWith('(') ? cf.functionName : '(native/builtin)';
  const s = short(cf.url);
  if (s.startsWith('npm:'))
    return (
      'npm:' +
      s
        .slice(4)
        .split('/')
        .slice(0, s[4] === '@' ? 2 : 1)
        .join('/')
    );
  if (s.startsWith('node:')) return 'node:' + s.slice(5).split('/')[0];
  return s;
};

const selfBy = new Map();
const groupBy = new Map();
const totalBy = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  const k = frameKey(n.callFrame);
  selfBy.set(k, (selfBy.get(k) ?? 0) + t);
  const g = groupKey(n.callFrame);
  groupBy.set(g, (groupBy.get(g) ?? 0) + t);
  // inclusive: every distinct frame on the stack gets the sample once
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const key = frameKey(byId.get(cur).callFrame);
    if (seen.has(key)) continue;
    seen.add(key);
    totalBy.set(key, (totalBy.get(key) ?? 0) + t);
  }
}

const print = (title, map) => {
  console.log(`\n${title}`);
  const rows = [...map]
    .filter(([k]) => !filter || k.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  for (const [k, t] of rows)
    console.log(`${t.toFixed(1).padStart(9)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
};
console.log(`${file}: ${total.toFixed(0)} ms sampled`);
print('self time by package / file', groupBy);
print('self time by function', selfBy);
print('total (inclusive) time by function', totalBy);

if (callers) {
  const stacks = new Map();
  for (const [id, t] of self) {
    if (!frameKey(byId.get(id).callFrame).includes(callers)) continue;
    const chain = [];
    for (let cur = id; cur !== undefined && chain.length < 8; cur = parent.get(cur))
      chain.push(frameKey(byId.get(cur).callFrame));
    const k = chain.join('\n      ← ');
    stacks.set(k, (stacks.get(k) ?? 0) + t);
  }
  console.log(`\nstacks of ${callers}`);
  for (const [k, t] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8))
    console.log(`${t.toFixed(1).padStart(9)} ms  ${k}`);
}
