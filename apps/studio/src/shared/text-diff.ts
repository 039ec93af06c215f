// Line diff of two texts for the file viewer's revision view, with the `diff` library (jsdiff).
import { diffLines } from 'diff';

export interface DiffLine {
  kind: 'added' | 'removed' | 'same';
  text: string;
}

/** `before` → `after`, line by line; unchanged runs longer than `context * 2` lines are folded. */
export function lineDiff(before: string, after: string, context = 3): (DiffLine | { kind: 'fold'; count: number })[] {
  const out: (DiffLine | { kind: 'fold'; count: number })[] = [];
  for (const part of diffLines(before, after)) {
    const lines = part.value.replace(/\n$/, '').split('\n');
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    if (kind === 'same' && lines.length > context * 2 + 1) {
      const head = out.length === 0 ? [] : lines.slice(0, context);
      const tail = lines.slice(-context);
      for (const text of head) out.push({ kind, text });
      out.push({ kind: 'fold', count: lines.length - head.length - tail.length });
      for (const text of tail) out.push({ kind, text });
    } else {
      for (const text of lines) out.push({ kind, text });
    }
  }
  return out;
}
