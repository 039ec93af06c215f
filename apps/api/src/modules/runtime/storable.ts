/**
 * What a model sends is stored (run events, history) in Postgres, whose text and jsonb cannot hold
 * U+0000. A NUL from a model (or a misbehaving OpenAI-compatible server) would make the turn
 * unrecordable, so the loop replaces it with U+FFFD, the replacement character, as it arrives.
 */
const NUL = /\u0000/g;

export function storableText(s: string): string {
  return s.includes('\u0000') ? s.replace(NUL, '\uFFFD') : s;
}

/** The same for every string (keys included) inside parsed JSON, e.g. tool-call arguments. */
export function storableValue<T>(v: T): T {
  if (typeof v === 'string') return storableText(v) as T;
  if (Array.isArray(v)) return v.map(storableValue) as T;
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[storableText(k)] = storableValue(x);
    return out as T;
  }
  return v;
}
