// Undo/redo for the editor: the draft, what came before and after, and the last saved draft.
import type { GraphDraft } from './draft-model';

export interface DraftHistory {
  draft: GraphDraft;
  past: GraphDraft[];
  future: GraphDraft[];
  /** The last saved draft; `draft !== saved` means there are unsaved changes. */
  saved: GraphDraft;
  /** Consecutive commits with the same key (typing in one field, one drag) make one undo step. */
  lastKey: string | null;
}

export const HISTORY_LIMIT = 100;

export function historyFrom(draft: GraphDraft): DraftHistory {
  return { draft, past: [], future: [], saved: draft, lastKey: null };
}

export function commit(h: DraftHistory, next: GraphDraft, coalesceKey: string | null = null): DraftHistory {
  if (next === h.draft) return h;
  if (coalesceKey !== null && coalesceKey === h.lastKey) {
    return { ...h, draft: next, future: [] };
  }
  const past = [...h.past, h.draft];
  if (past.length > HISTORY_LIMIT) past.splice(0, past.length - HISTORY_LIMIT);
  return { ...h, draft: next, past, future: [], lastKey: coalesceKey };
}

export function undo(h: DraftHistory): DraftHistory {
  if (h.past.length === 0) return h;
  const prev = h.past[h.past.length - 1];
  return { ...h, draft: prev, past: h.past.slice(0, -1), future: [h.draft, ...h.future], lastKey: null };
}

export function redo(h: DraftHistory): DraftHistory {
  if (h.future.length === 0) return h;
  const [next, ...rest] = h.future;
  return { ...h, draft: next, past: [...h.past, h.draft], future: rest, lastKey: null };
}

export function markSaved(h: DraftHistory, saved: GraphDraft = h.draft): DraftHistory {
  return { ...h, saved, draft: saved, lastKey: null };
}

export function isDirty(h: DraftHistory): boolean {
  return h.draft !== h.saved;
}
