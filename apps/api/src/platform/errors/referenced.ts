import { DomainError } from './domain-error';

/**
 * The 409 for deleting a record others still use: the detail names the record and its referrers by
 * name, in words a user reads (docs/API.md, "Errors"), e.g.
 * 'The model "Fast" is used by the agents "Writer" and "Reviewer": choose another model for them … first.'
 */
export function referenced(
  what: string,
  referrer: { one: string; many: string },
  names: string[],
  total: number,
  then: string,
): DomainError {
  const quoted = names.map((n) => `"${n}"`);
  if (total > names.length) quoted.push(`${total - names.length} more`);
  const list = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}` : quoted[0];
  return new DomainError(
    'record.referenced',
    `${what} is used by the ${total === 1 ? referrer.one : referrer.many} ${list}: ${then}.`,
  );
}

export const AGENTS = { one: 'agent', many: 'agents' };
