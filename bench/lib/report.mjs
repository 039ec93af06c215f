// The table (console and docs/performance.md), bench/results/latest.json, and the machine facts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const esc = (s) => String(s ?? '—').replace(/\|/g, '\\|');

export function table(entries) {
  const lines = [
    '| scenario | database | direct | via service | overhead | ratio | target | met |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const e of entries) {
    const met = e.error ? 'error' : e.target_met ? 'yes' : '**no**';
    const service = e.error ? `error: ${e.error}` : e.service;
    lines.push(
      `| ${esc(e.scenario)} | ${esc(e.database)} | ${esc(e.direct)} | ${esc(service)} | ${esc(e.overhead)} | ${e.ratio ?? '—'} | ${esc(e.target)} | ${met} |`,
    );
    for (const r of e.rows ?? []) {
      lines.push(
        `| ↳ ${esc(r.label)} | ${esc(e.database)} | ${esc(r.direct ?? '—')} | ${esc(r.service)} | ${esc(r.overhead ?? '—')} | — | | |`,
      );
    }
  }
  return lines.join('\n');
}

export function machineFacts(extra = {}) {
  const cpus = os.cpus();
  let chromium = null;
  try {
    chromium = execFileSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium', ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    /* not installed */
  }
  return {
    date: new Date().toISOString(),
    cpu: `${cpus[0]?.model ?? 'unknown'} × ${cpus.length}`,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    chromium,
    ...extra,
  };
}

export function writeResults(root, entries) {
  const dir = join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'latest.json');
  writeFileSync(file, JSON.stringify(entries, null, 2) + '\n');
  return file;
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Replaces the results block of docs/performance.md (between the markers) with this run's table. */
export function updateDocs(root, entries, facts, mode) {
  const file = join(root, 'docs/performance.md');
  if (!existsSync(file)) return null;
  const doc = readFileSync(file, 'utf8');
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) return null;
  const block = [
    START,
    `Measured ${facts.date.slice(0, 10)} (${mode}) on ${facts.cpu}, ${facts.memory_gib} GiB, ${facts.os}; Node ${facts.node}` +
      `${facts.postgres ? `; Postgres ${facts.postgres}` : ''}${facts.chromium ? `; ${facts.chromium}` : ''}.`,
    '',
    table(entries),
    END,
  ].join('\n');
  writeFileSync(file, doc.slice(0, a) + block + doc.slice(b + END.length));
  return file;
}
