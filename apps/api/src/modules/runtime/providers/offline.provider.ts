/**
 * The `offline` provider (docs/API.md): the model used when none is configured. Deterministic (the same
 * request always gives the same answer), no network, and it works through the ordinary tool-call
 * mechanism like a real model would:
 *
 *   1st call  → `list_files`
 *   2nd call  → `read_file` of the most relevant inputs that exist (at most 3): files the prompt or the
 *               message names first, then docs/*.md (earlier stages' artifacts), then other text files
 *   3rd call  → `write_file` of the node's artifact (the `Artifact to produce: <path>` line of the system
 *               prompt) with a structured Markdown draft built from the message and what it read
 *   last call → a text answer, streamed in several deltas, that says plainly that no language model is
 *               configured and what it did
 *
 * A step whose tool is not offered is skipped. Usage counts words as tokens.
 */
import type { ChatMessage, Provider, ProviderEvent, ProviderRequest, ToolCall } from './provider';

export const OFFLINE_MODEL = 'offline';
const MAX_READS = 3;
const TEXT_FILE = /\.(md|markdown|txt)$/i;

/** Sections used when the prompt does not list the artifact's sections itself. */
const STAGE_SECTIONS: Record<string, string[]> = {
  // pdlc
  discover: [
    'Problem',
    'Users',
    'Current alternatives',
    'Goals and non-goals',
    'Assumptions and risks',
    'Open questions',
  ],
  design: ['Summary', 'Scope', 'User flows', 'Architecture', 'Alternatives considered', 'Risks and open questions'],
  develop: [
    'Scope of this increment',
    'Files and changes',
    'How the acceptance criteria are met',
    'Decisions',
    'Known limitations',
  ],
  test: ['What to test', 'Test cases', 'Acceptance criteria', 'Results', 'Known gaps'],
  deploy: ['Release plan', 'Rollout and rollback', 'Monitoring', 'Checklist'],
  iterate: ['What we shipped', 'What we learned', 'Metrics', 'Next iteration'],
  // sdlc
  plan: ['Goal', 'Scope', 'Milestones', 'Risks', 'Open questions'],
  implement: ['Changes', 'Interfaces', 'Decisions', 'Known limitations'],
  review: ['What was reviewed', 'Findings', 'Required changes', 'Approval'],
  release: ['Release notes', 'Rollout', 'Rollback', 'Follow-ups'],
};
const DEFAULT_SECTIONS = ['Summary', 'Details', 'Decisions', 'Open questions', 'Next steps'];

interface Section {
  name: string;
  hint: string | null;
}

interface ReadInput {
  path: string;
  ok: boolean;
  content: string;
}

export class OfflineProvider implements Provider {
  readonly name = 'offline';

  async *stream(req: ProviderRequest): AsyncIterable<ProviderEvent> {
    const offered = new Set(req.tools.map((t) => t.name));
    const turn = currentTurn(req.messages);
    const calledNames = new Set(turn.calls.map((c) => c.name));
    const stage = lastLine(req.system, 'Stage: ') || 'current';
    const artifact = lastLine(req.system, 'Artifact to produce: ');
    const inputTokens = words(req.system) + req.messages.reduce((n, m) => n + words(m.content), 0);
    // ids are positional within the turn, so the same request always gives the same calls
    let seq = turn.calls.length;
    const call = (name: string, args: Record<string, unknown>): ToolCall => ({
      id: `offline_${++seq}`,
      name,
      arguments: args,
    });

    const listing = turn.calls.find((c) => c.name === 'list_files');
    const listed = listing ? parseListing(turn.results.get(listing.id)) : null;

    let calls: ToolCall[] = [];
    if (offered.has('list_files') && !listing) {
      calls = [call('list_files', {})];
    } else if (offered.has('read_file') && !calledNames.has('read_file') && listed?.length) {
      calls = pickInputs(listed, artifact, `${req.system}\n${turn.user}`).map((path) => call('read_file', { path }));
    }
    if (!calls.length && artifact && offered.has('write_file') && !calledNames.has('write_file')) {
      calls = [
        call('write_file', {
          path: artifact,
          content: draft(stage, artifact, turn.user, reads(turn), sectionsFor(req.system, stage)),
        }),
      ];
    }
    if (calls.length) {
      for (const c of calls) yield { type: 'tool_call', call: c };
      yield {
        type: 'usage',
        input_tokens: inputTokens,
        output_tokens: calls.reduce((n, c) => n + words(JSON.stringify(c.arguments)), 0),
      };
      yield { type: 'finish', reason: 'tool_calls' };
      return;
    }

    const text = finalAnswer(stage, turn, listed, sectionsFor(req.system, stage));
    const chunks = text.match(/\S+\s*/g) ?? [text];
    for (let i = 0; i < chunks.length; i += 6) yield { type: 'text', delta: chunks.slice(i, i + 6).join('') };
    yield { type: 'usage', input_tokens: inputTokens, output_tokens: words(text) };
    yield { type: 'finish', reason: 'stop' };
  }
}

// ---------------------------------------------------------------------------------------------
// reading the request

function words(s: string | undefined): number {
  return s ? s.split(/\s+/).filter(Boolean).length : 0;
}

/** The value of the last line starting with `prefix` (the runtime's context section comes last). */
function lastLine(text: string, prefix: string): string | null {
  let found: string | null = null;
  for (const line of text.split('\n')) if (line.startsWith(prefix)) found = line.slice(prefix.length).trim() || null;
  return found;
}

interface TurnView {
  user: string;
  calls: ToolCall[];
  /** tool results by call id */
  results: Map<string, string>;
}

/** The current turn: the last user message and the tool calls and results that followed it. */
function currentTurn(messages: ChatMessage[]): TurnView {
  let i = messages.length - 1;
  while (i >= 0 && messages[i].role !== 'user') i--;
  const after = messages.slice(i + 1);
  return {
    user: i >= 0 ? messages[i].content : '',
    calls: after.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : [])),
    results: new Map(
      after.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => [m.tool_call_id as string, m.content]),
    ),
  };
}

function failed(result: string | undefined): boolean {
  return result === undefined || result.startsWith('{"ok":false');
}

function errorOf(result: string | undefined): string {
  try {
    const error = (JSON.parse(result ?? '') as { error?: unknown }).error;
    return typeof error === 'string' ? error : 'failed';
  } catch {
    return 'failed';
  }
}

/** Paths from a list_files result (`path (N bytes, rev R)` lines); null when the listing failed. */
function parseListing(result: string | undefined): string[] | null {
  if (failed(result)) return null;
  return (result ?? '')
    .split('\n')
    .map((l) => /^(.+) \(\d+ bytes, rev \d+\)$/.exec(l)?.[1])
    .filter((p): p is string => !!p);
}

/** The most relevant inputs: text files named in the prompt or message, then docs/, then the rest. */
function pickInputs(paths: string[], artifact: string | null, context: string): string[] {
  const rank = (p: string) => (context.includes(p) ? 0 : p.startsWith('docs/') ? 1 : p.includes('/') ? 3 : 2);
  return paths
    .filter((p) => p !== artifact && TEXT_FILE.test(p))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .slice(0, MAX_READS);
}

function reads(turn: TurnView): ReadInput[] {
  return turn.calls
    .filter((c) => c.name === 'read_file')
    .map((c) => {
      const result = turn.results.get(c.id);
      return {
        path: String(c.arguments.path),
        ok: !failed(result),
        content: failed(result) ? errorOf(result) : (result ?? ''),
      };
    });
}

/**
 * The artifact's sections: a numbered bold list in the prompt (`1. **Problem** — one paragraph …`, as
 * the seeded skills write them), else the stage's usual sections.
 */
function sectionsFor(system: string, stage: string): Section[] {
  const listed: Section[] = [];
  for (const line of system.split('\n')) {
    const m = /^\s*\d+\.\s+\*\*([^*]{1,80})\*\*(.*)$/.exec(line);
    if (!m) continue;
    let name = m[1].trim().replace(/[.:]$/, '');
    let rest = m[2].replace(/\*\*/g, '').trim();
    if (/^[,&]/.test(rest)) {
      // `**Risks and mitigations**, **open questions**.` is one section with a longer name
      name += rest.replace(/[.\s]+$/, '');
      rest = '';
    }
    rest = rest.replace(/^[—–:-]\s*/, '').trim();
    listed.push({ name, hint: rest || null });
  }
  if (listed.length >= 2) return listed;
  return (STAGE_SECTIONS[stage] ?? DEFAULT_SECTIONS).map((name) => ({ name, hint: null }));
}

// ---------------------------------------------------------------------------------------------
// writing

interface Outline {
  title: string | null;
  /** content lines (no headings) by normalised heading, '' for text before the first heading */
  byHeading: Map<string, string[]>;
  points: string[];
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function outline(content: string): Outline {
  const byHeading = new Map<string, string[]>();
  let title: string | null = null;
  let current = '';
  const points: string[] = [];
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('… (')) continue; // read_file's own continuation note
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    if (h) {
      title ??= h[1].trim();
      current = norm(h[1]);
      continue;
    }
    const text = line
      .replace(/^([-*+]|\d+\.)\s+/, '')
      .replace(/^>\s*/, '')
      .trim();
    if (!text || /^[-=_*]{3,}$/.test(text)) continue;
    const clipped = text.length > 200 ? text.slice(0, 200) + '…' : text;
    if (!byHeading.has(current)) byHeading.set(current, []);
    byHeading.get(current)!.push(clipped);
    points.push(clipped);
  }
  return { title, byHeading, points };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function topicOf(message: string): string {
  const first =
    message
      .trim()
      .split('\n')
      .find((l) => l.trim()) ?? '';
  return first.length > 80 ? first.slice(0, 80).trimEnd() + '…' : first;
}

function draft(stage: string, artifact: string, message: string, inputs: ReadInput[], sections: Section[]): string {
  const topic = topicOf(message);
  const ok = inputs.filter((r) => r.ok);
  const outlines = ok.map((r) => ({ path: r.path, ...outline(r.content) }));
  const out: string[] = [
    `# ${capital(stage)}${topic ? `: ${topic}` : ''}`,
    '',
    `> First draft of \`${artifact}\` by the offline assistant. No language model is configured on this server, so`,
    '> this document was assembled from your request and the workspace files, not written by a model.',
    '> Review every section and replace the prompts in italics with real content.',
    '',
    '## Request',
    '',
    ...(message.trim()
      ? message
          .trim()
          .split('\n')
          .map((l) => `> ${l}`)
      : ['_(no message)_']),
    '',
  ];
  if (inputs.length) {
    out.push('## Inputs', '');
    for (const r of inputs) {
      const o = outlines.find((x) => x.path === r.path);
      if (!r.ok || !o) {
        out.push(`- \`${r.path}\` — could not be read (${r.content})`);
        continue;
      }
      out.push(`- \`${r.path}\`${o.title ? ` — ${o.title}` : ''}`);
      for (const p of o.points.slice(0, 4)) out.push(`  - ${p}`);
    }
    out.push('');
  }
  for (const s of sections) {
    out.push(`## ${s.name}`, '');
    if (s.hint) out.push(`_${capital(s.hint)}_`, '');
    // carry over what earlier documents already say under the same heading
    const carried = outlines.flatMap((o) => {
      const key = [...o.byHeading.keys()].find(
        (k) => k && (k === norm(s.name) || k.includes(norm(s.name)) || norm(s.name).includes(k)),
      );
      return key ? (o.byHeading.get(key) ?? []).slice(0, 5).map((line) => `- ${line} _(from \`${o.path}\`)_`) : [];
    });
    if (carried.length) out.push(...carried);
    else out.push(`- _To be completed for: ${topic || 'this project'}._`);
    out.push('');
  }
  return out.join('\n');
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function finalAnswer(stage: string, turn: TurnView, listed: string[] | null, sections: Section[]): string {
  const did: string[] = [];
  const listing = turn.calls.find((c) => c.name === 'list_files');
  if (listing) {
    did.push(
      listed
        ? `listed the workspace (${listed.length} file${listed.length === 1 ? '' : 's'})`
        : `tried to list the workspace (${errorOf(turn.results.get(listing.id))})`,
    );
  }
  const inputs = reads(turn);
  const readOk = inputs.filter((r) => r.ok);
  if (readOk.length) did.push(`read ${list(readOk.map((r) => r.path))}`);
  for (const r of inputs.filter((x) => !x.ok)) did.push(`could not read ${r.path} (${r.content})`);
  const write = turn.calls.find((c) => c.name === 'write_file');
  if (write) {
    const result = turn.results.get(write.id);
    did.push(
      failed(result)
        ? `tried to write ${String(write.arguments.path)} but could not (${errorOf(result)})`
        : `wrote a first draft of ${String(write.arguments.path)} with the sections ${list(sections.map((s) => s.name))}`,
    );
  }
  const parts = [
    `No language model is configured, so the offline assistant answered: for the ${stage} stage I ${did.length ? did.join(', then ') : 'only read your message'}.`,
  ];
  if (readOk.length && !write) {
    const notes = readOk.flatMap((r) =>
      outline(r.content)
        .points.slice(0, 2)
        .map((p) => `${r.path}: ${p}`),
    );
    if (notes.length) parts.push(`What the workspace says: ${notes.join(' · ')}.`);
  }
  const topic = topicOf(turn.user);
  if (topic) parts.push(`Your request: "${topic}".`);
  parts.push(
    'This is a deterministic placeholder, not an answer from a model. For real answers, configure a model: ' +
      'set LLM_PROVIDER, LLM_MODEL and LLM_API_KEY on the server, or give this agent a model in the studio.',
  );
  return parts.join(' ');
}
