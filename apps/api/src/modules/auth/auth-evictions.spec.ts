import assert from 'node:assert/strict';
import { decodeEviction, encodeEviction } from './auth.service';

test('an eviction notice round-trips; anything unreadable means "evict everything"', () => {
  assert.deepEqual(decodeEviction(encodeEviction({ token_id: 7, nonce: 'n1' })), { token_id: 7, nonce: 'n1' });
  assert.deepEqual(decodeEviction(encodeEviction({ nonce: 'n2' })), { nonce: 'n2' });
  assert.deepEqual(decodeEviction(encodeEviction({ token_id: undefined })), {});
  for (const bad of ['', 'not json', 'null', '42', '{"token_id":"7"}', '{"token_id":1.5}'])
    assert.equal(decodeEviction(bad).token_id, undefined, bad);
});
