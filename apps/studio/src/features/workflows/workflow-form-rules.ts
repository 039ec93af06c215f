// The checks the workflow forms run before sending (the API checks the same and has the last word).

export const SLUG_RE = /^[a-z0-9-]{1,64}$/;
export const SLUG_MESSAGE = 'Lowercase letters, digits and dashes (at most 64).';

/** Stage names typed one per line or comma-separated, in order. */
export function parseStages(text: string): string[] {
  return text
    .split(/[\n,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** What is wrong with a workflow's stage list, or null. */
export function stagesProblem(stages: readonly string[]): string | null {
  if (stages.length === 0) return 'List at least one stage.';
  if (new Set(stages).size !== stages.length) return 'Stage names must be unique.';
  return null;
}
