/**
 * What a model (or a user) sends is stored (run events, history) in Postgres, whose text and jsonb
 * cannot hold U+0000, and whose jsonb refuses a lone UTF-16 surrogate (`\ud83d` without its pair).
 * Either would make the turn unrecordable, so both are replaced with U+FFFD, the replacement
 * character, as they arrive (docs/decisions/runtime.md, "Storable text").
 */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

export function storableText(s: string): string {
  let out = s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s;
  const w = out as unknown as WellFormed;
  if (!w.isWellFormed()) out = w.toWellFormed();
  return out;
}

/** The same for every string (keys included) inside parsed JSON, e.g. tool-call arguments. */
export function storableValue<T>(v: T): T {
  if (typeof v === 'string') return storableText(v) as T;
  if (Array.isArray(v)) return v.map(storableValue) as T;
  if (v !== null && typeof v === 'object' && isPlain(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[storableText(k)] = storableValue(x);
    return out as T;
  }
  return v;
}

function isPlain(v: object): boolean {
  const p: unknown = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/**
 * Joins a stream of text deltas without splitting a surrogate pair: a delta that ends with a high
 * surrogate keeps it back until the next delta brings its low half (a provider may cut an emoji's
 * pair across two chunks). `push` returns what can be sent now; `end` returns what is left.
 */
export class TextJoiner {
  private held = '';

  push(delta: string): string {
    let s = this.held + delta;
    this.held = '';
    const last = s.charCodeAt(s.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = s.slice(-1);
      s = s.slice(0, -1);
    }
    return storableText(s);
  }

  end(): string {
    const s = this.held;
    this.held = '';
    return storableText(s);
  }
}
