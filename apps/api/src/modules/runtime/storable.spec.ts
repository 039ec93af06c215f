import assert from 'node:assert/strict';
import { storableText, storableValue, TextJoiner } from './storable';

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

test('a lone surrogate becomes U+FFFD; a whole pair is kept', () => {
  assert.equal(storableText('x\udfffy'), 'x\uFFFDy');
  assert.equal(storableText('a\ud83d'), 'a\uFFFD');
  assert.equal(storableText('😀'), '😀');
  assert.deepEqual(storableValue({ ['k\ud800']: ['\udc00z'] }), { 'k\uFFFD': ['\uFFFDz'] });
});

test('TextJoiner keeps an emoji whole when its pair is split across deltas', () => {
  const j = new TextJoiner();
  assert.equal(j.push('smile \ud83d'), 'smile ');
  assert.equal(j.push('\ude00!'), '😀!');
  assert.equal(j.push('end \ud83d'), 'end ');
  assert.equal(j.end(), '\uFFFD', 'a high surrogate with no pair at the end is replaced');
  assert.equal(j.push('\ude00'), '\uFFFD', 'a low surrogate with no high one before it is replaced');
});
