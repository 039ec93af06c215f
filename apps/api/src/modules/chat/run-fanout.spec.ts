import { NOTIFY_MAX_BYTES } from '../cluster/cluster-bus';
import { encode, type FanoutBatch } from './run-fanout';

const RUN = '0b5b2c4e-8a0e-4f7e-9d59-2b1f6f3c1a10';
const ev = (seq: number, data: unknown) => ({ seq, json: JSON.stringify([seq, 'content', data]) });
const parse = (payloads: string[]) => payloads.map((p) => JSON.parse(p) as FanoutBatch);

describe('encode (the NOTIFY batches of one run)', () => {
  test('small events travel in one payload that names the seq before them', () => {
    const [b] = parse(encode(RUN, { after: 7, events: [ev(8, { delta: 'a' }), ev(9, { delta: 'b' })] }));
    expect(b).toEqual({
      r: RUN,
      a: 7,
      e: [
        [8, 'content', { delta: 'a' }],
        [9, 'content', { delta: 'b' }],
      ],
    });
  });

  test('payloads stay under the NOTIFY limit; each chunk follows the last event of the one before', () => {
    const delta = 'x'.repeat(1000);
    const events = Array.from({ length: 30 }, (_, i) => ev(i + 1, { delta }));
    const payloads = encode(RUN, { after: 0, events });
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(NOTIFY_MAX_BYTES);
    const batches = parse(payloads);
    let last = 0;
    for (const b of batches) {
      expect(b.a).toBe(last);
      last = b.e!.at(-1)![0];
    }
    expect(batches.flatMap((b) => b.e!.map((e) => e[0]))).toEqual(events.map((e) => e.seq));
  });

  test('an event too large for a notification becomes a pointer: read up to its seq from the database', () => {
    const big = ev(5, { output: 'y'.repeat(NOTIFY_MAX_BYTES) });
    const batches = parse(encode(RUN, { after: 3, events: [ev(4, { delta: 'a' }), big, ev(6, { delta: 'b' })] }));
    expect(batches).toEqual([
      { r: RUN, a: 3, e: [[4, 'content', { delta: 'a' }]] },
      { r: RUN, a: 4, s: 5 },
      { r: RUN, a: 5, e: [[6, 'content', { delta: 'b' }]] },
    ]);
  });
});

test('a payload names its run in a fixed place, so a replica skips batches of runs it does not stream unparsed', () => {
  for (const p of encode(RUN, { after: 0, events: [ev(1, { delta: 'a' })] })) expect(p.slice(6, 42)).toBe(RUN);
  expect(
    encode(RUN, { after: 0, events: [{ seq: 2, json: '[2,"x",{"big":"' + 'q'.repeat(9000) + '"}]' }] })[0].slice(6, 42),
  ).toBe(RUN);
});
