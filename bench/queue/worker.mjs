// Child process for bench/queue-engines.mjs: one queue worker of one engine.
// argv: ENGINE JSON({ env, concurrency, projects }). Talks to the parent over IPC:
//   -> { t: 'ready' } once waiting for jobs; { t: 'start' | 'end', i, project, at, pid } for jobs whose
//      payload asks for it (payload.r); { t: 'count', n } every 50 ms; { t: 'cpu', userMs, systemMs }
//   <- { t: 'reset' } (zero job count and CPU), { t: 'cpu' }, { t: 'stop' }
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, now } from './engines.mjs';

const [engineName, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
let count = 0;
let cpu = process.cpuUsage();

async function handle(payload) {
  if (payload.r) process.send({ t: 'start', i: payload.i, project: payload.project, at: now(), pid: process.pid });
  if (payload.ms) await sleep(payload.ms);
  if (payload.r) process.send({ t: 'end', i: payload.i, project: payload.project, at: now(), pid: process.pid });
  count++;
}

const worker = await ENGINES[engineName].worker(config.env, config, handle);
const ticker = setInterval(() => process.send({ t: 'count', n: count }), 50);
process.on('message', async (m) => {
  if (m.t === 'reset') {
    count = 0;
    cpu = process.cpuUsage();
    process.send({ t: 'reset-ok' });
  } else if (m.t === 'cpu') {
    const d = process.cpuUsage(cpu);
    process.send({ t: 'cpu', userMs: d.user / 1000, systemMs: d.system / 1000, n: count });
  } else if (m.t === 'stop') {
    clearInterval(ticker);
    await worker.stop();
    process.exit(0);
  }
});
process.send({ t: 'ready' });
