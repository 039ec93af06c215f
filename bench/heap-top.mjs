#!/usr/bin/env node
// Compares two V8 heap snapshots (.heapsnapshot, e.g. from `node --heapsnapshot-signal=SIGUSR1`):
// objects grouped by constructor / type, with the growth in count and self size from the first to the
// second. Used to see what one held stream keeps alive (scenario 4).
//   node bench/heap-top.mjs before.heapsnapshot after.heapsnapshot [--top 40] [--per 1000] [--by-script]
// --by-script: closures (and the contexts they hold) grouped by the script that defined them, which
// points at the library or module that allocates per stream.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const top = opt('top', 40);
const per = opt('per', 1);
const byScript = args.includes('--by-script');

function summarise(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const f = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = f.length;
  const iType = f.indexOf('type');
  const iName = f.indexOf('name');
  const iSize = f.indexOf('self_size');
  const iEdges = f.indexOf('edge_count');
  const ef = snap.snapshot.meta.edge_fields;
  const ew = ef.length;
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const eType = ef.indexOf('type');
  const eName = ef.indexOf('name_or_index');
  const eTo = ef.indexOf('to_node');
  const firstEdge = new Uint32Array(snap.nodes.length / width + 1);
  for (let i = 0, e = 0; i < snap.nodes.length; i += width) {
    firstEdge[i / width] = e;
    e += snap.nodes[i + iEdges] * ew;
  }
  const edgeTo = (node, name) => {
    const n = node / width;
    const start = firstEdge[n];
    const end = start + snap.nodes[node + iEdges] * ew;
    for (let e = start; e < end; e += ew) {
      const t = edgeTypes[snap.edges[e + eType]];
      if (t !== 'element' && t !== 'hidden' && snap.strings[snap.edges[e + eName]] === name) return snap.edges[e + eTo];
    }
    return -1;
  };
  const scriptOf = (closure) => {
    const sfi = edgeTo(closure, 'shared');
    if (sfi < 0) return '?';
    let script = edgeTo(sfi, 'script_or_debug_info');
    if (script < 0) script = edgeTo(sfi, 'script');
    if (script < 0) return '?';
    return snap.strings[snap.nodes[script + iName]]
      .replace(/^.*\/node_modules\//, 'npm:')
      .replace(/^.*\/apps\/api\/dist\//, 'api:');
  };
  const out = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    let name = snap.strings[snap.nodes[i + iName]];
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    else if (type === 'code') name = '(code)';
    else if (type === 'hidden' || type === 'array') name = `(${type}) ${name.slice(0, 40)}`;
    else if (type === 'closure') name = byScript ? `(closure in) ${scriptOf(i)}` : `(closure) ${name.slice(0, 40)}`;
    else if (type === 'native') name = `(native) ${name.slice(0, 40)}`;
    const size = snap.nodes[i + iSize];
    total += size;
    const e = out.get(name) ?? { count: 0, size: 0 };
    e.count++;
    e.size += size;
    out.set(name, e);
  }
  return { out, total };
}

if (files.length !== 2) {
  console.error('usage: node bench/heap-top.mjs before.heapsnapshot after.heapsnapshot [--top 40] [--per 1000]');
  process.exit(2);
}
const a = summarise(files[0]);
const b = summarise(files[1]);
console.log(
  `heap: ${(a.total / 2 ** 20).toFixed(1)} MiB → ${(b.total / 2 ** 20).toFixed(1)} MiB (+${((b.total - a.total) / 2 ** 10 / per).toFixed(1)} KiB per unit, ${per} units)`,
);
const rows = [];
for (const [name, e] of b.out) {
  const before = a.out.get(name) ?? { count: 0, size: 0 };
  rows.push({ name, dCount: e.count - before.count, dSize: e.size - before.size });
}
rows.sort((x, y) => y.dSize - x.dSize);
for (const r of rows.slice(0, top)) {
  console.log(
    `${(r.dSize / 1024 / per).toFixed(2).padStart(9)} KiB ${(r.dCount / per).toFixed(1).padStart(8)} objs  ${r.name}`,
  );
}
