import assert from 'node:assert/strict';
import { lineDiff } from './text-diff';

describe('lineDiff', () => {
  it('marks added and removed lines', () => {
    assert.deepEqual(lineDiff('a\nb\nc\n', 'a\nB\nc\n'), [
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
  });
  it('folds long unchanged runs, keeping context around changes', () => {
    const many = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const d = lineDiff(`${many}\nold\n`, `${many}\nnew\n`, 2);
    assert.deepEqual(d[0], { kind: 'fold', count: 18 });
    assert.deepEqual(
      d.slice(1).map((l) => l.kind),
      ['same', 'same', 'removed', 'added'],
    );
  });
});
