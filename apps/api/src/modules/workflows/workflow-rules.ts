/** The rules a workflow (pack) record follows: slug and stage patterns, default stages, text bounds. */

export const SLUG_PATTERN = /^[a-z0-9-]{1,64}$/;
export const DOMAIN_PATTERN = /^[a-z0-9-]{1,64}$/;
export const STAGE_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const MAX_STAGES = 32;
export const MAX_NAME = 200;
/** Descriptions and prompts: 64 KiB of text (docs/API.md "prompts ≤ 64 KiB"). */
export const MAX_TEXT = 65536;

export const DEFAULT_STAGES: Readonly<Record<string, readonly string[]>> = {
  pdlc: ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'],
  sdlc: ['plan', 'design', 'implement', 'review', 'test', 'release'],
};

/** The stages a new pack gets when the body names none: the domain's defaults, or null (custom: required). */
export function defaultStages(domain: string): string[] | null {
  const stages = Object.hasOwn(DEFAULT_STAGES, domain) ? DEFAULT_STAGES[domain] : undefined;
  return stages ? [...stages] : null;
}

/** "Ship It — v2!" → "ship-it-v2"; never empty, at most `max` characters, no leading/trailing "-". */
export function slugify(name: string, max = 64): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = base.slice(0, max).replace(/-+$/, '');
  return cut || 'workflow';
}

/** The first of `base`, `base-2`, `base-3`, … not in `taken`, kept within 64 characters. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, 64 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
