// The fake OpenAI-compatible provider as its own process (forked by bench/run.mjs), so its CPU is
// not the service's and not the load generator's. It wraps the test suite's FakeLlm
// (apps/api/dist-support/fake-llm.js) and is steered over IPC:
//   {id, cmd: 'turn', turn}       set the default turn (ttftMs, tokens, tokenIntervalMs, …)
//   {id, cmd: 'enqueue', turns}   script the next requests, answered in order
//   {id, cmd: 'stats'}            {count, inflight, maxInflight, recent: [{path, body}] (last 8),
//                                 timings: [{firstTokenNs, endNs}] (last 8, process.hrtime.bigint() as
//                                 strings: the monotonic clock is shared by every process on the machine)}
//   {id, cmd: 'reset'}            zero the counters and the recent list, drop queued turns
// FakeLlm records every request it sees; a benchmark sends hundreds of thousands, so the record is
// replaced by a counter and a ring of the last few bodies (needed to replay "direct" requests).
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.argv[2];
const require = createRequire(import.meta.url);
const { FakeLlm } = require(join(root, 'apps/api/dist-support/fake-llm.js'));

const RING = 8;
let count = 0;
let inflight = 0;
let maxInflight = 0;
let recent = [];
let timings = [];
const CONTENT = /"content":"[^"]/;

const fake = await FakeLlm.start({ host: '127.0.0.1', defaultTurn: { tokens: 20 } });
fake.requests.push = (r) => {
  count++;
  recent.push({ path: r.path, body: r.body });
  if (recent.length > RING) recent.shift();
  return 0;
};
// `server` is private in TypeScript only: count requests in flight (opened until their response closed).
fake.server.on('request', (req, res) => {
  if (!req.url?.includes('/chat/completions') && !req.url?.includes('/messages')) return;
  inflight++;
  if (inflight > maxInflight) maxInflight = inflight;
  const timing = { firstTokenNs: null, endNs: null };
  timings.push(timing);
  if (timings.length > RING) timings.shift();
  const write = res.write;
  res.write = function (chunk, ...rest) {
    if (timing.firstTokenNs === null && typeof chunk === 'string' && CONTENT.test(chunk))
      timing.firstTokenNs = String(process.hrtime.bigint());
    return write.call(this, chunk, ...rest);
  };
  res.once('finish', () => (timing.endNs = String(process.hrtime.bigint())));
  res.once('close', () => inflight--);
});

process.on('message', (m) => {
  try {
    let reply = { ok: true };
    switch (m.cmd) {
      case 'turn':
        fake.defaultTurn = m.turn;
        break;
      case 'enqueue':
        fake.enqueue(...m.turns);
        break;
      case 'stats':
        reply = { count, inflight, maxInflight, pending: fake.pending, recent, timings };
        break;
      case 'reset':
        count = 0;
        maxInflight = inflight;
        recent = [];
        timings = [];
        fake.reset();
        break;
      default:
        throw new Error(`unknown command ${m.cmd}`);
    }
    process.send({ id: m.id, ...reply });
  } catch (e) {
    process.send({ id: m.id, ok: false, error: String(e) });
  }
});
process.on('disconnect', () => fake.close().then(() => process.exit(0)));
process.send({ ready: true, openaiBase: fake.openaiBase, url: fake.url });
