import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storableText, storableValue } from './storable';

test('NUL becomes U+FFFD in text; other text is returned as is', () => {
  assert.equal(storableText('a\u0000b\u0000'), 'a\uFFFDb\uFFFD');
  const plain = 'no nul here';
  assert.equal(storableText(plain), plain);
});

test('every string inside a JSON value, keys included, loses its NULs; other values are kept', () => {
  assert.deepEqual(storableValue({ path: 'a\u0000.md', 'k\u0000': [1, 'x\u0000', null, true, { deep: '\u0000' }] }), {
    path: 'a\uFFFD.md',
    'k\uFFFD': [1, 'x\uFFFD', null, true, { deep: '\uFFFD' }],
  });
});
