/**
 * The `offline` provider (SPEC §7.4): used when no language model is configured. Deterministic, no
 * network, and it really works through the tool loop: it lists the workspace, reads the stage's inputs,
 * writes the node's artifact, then says plainly that no language model is configured.
 */
import type { ChatMessage, Provider, ProviderEvent, ProviderRequest, ToolCall } from './provider';

const STAGE_SECTIONS: Record<string, string[]> = {
  discover: ['Problem', 'Who has it', 'Goals and non-goals', 'Evidence to collect', 'Open questions'],
  design: ['Overview', 'User flows', 'Components', 'Decisions and trade-offs', 'Risks'],
  develop: ['Scope of this increment', 'Implementation plan', 'Interfaces', 'Tasks'],
  test: ['What to test', 'Test cases', 'Acceptance criteria', 'Known gaps'],
  deploy: ['Release plan', 'Rollout and rollback', 'Monitoring', 'Checklist'],
  iterate: ['What we shipped', 'What we learned', 'Metrics', 'Next iteration'],
};
const DEFAULT_SECTIONS = ['Summary', 'Details', 'Next steps'];

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function stageOf(system: string): string {
  return /working in the "([^"]+)" stage/.exec(system)?.[1] ?? 'current';
}
function artifactOf(system: string): string | null {
  return /^Artifact to produce: (.+)$/m.exec(system)?.[1]?.trim() ?? null;
}

/** The messages of the current turn: everything after the last user message. */
function currentTurn(messages: ChatMessage[]) {
  let i = messages.length - 1;
  while (i >= 0 && messages[i].role !== 'user') i--;
  return { user: i >= 0 ? messages[i].content : '', after: messages.slice(i + 1) };
}


export class OfflineProvider implements Provider {
  readonly name = 'offline';

  async *stream(req: ProviderRequest): AsyncIterable<ProviderEvent> {
    const offered = new Set(req.tools.map((t) => t.name));
    const { user, after } = currentTurn(req.messages);
    const called = after.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
    const results = new Map(after.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
    const calledNames = new Set(called.map((c) => c.name));
    // ids are positional within the turn, so the same input always gives the same output
    let seq = called.length;
    const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: `offline_${++seq}`, name, arguments: args });
    const stage = stageOf(req.system);
    const artifact = artifactOf(req.system);
    const input = words(req.system) + req.messages.reduce((n, m) => n + words(m.content), 0);

    const listing = called.find((c) => c.name === 'list_files');
    const paths = listing ? (results.get(listing.id) ?? '').split('\n').map((l) => /^(\S+) \(\d+ bytes/.exec(l)?.[1]).filter((p): p is string => !!p) : [];
    const inputs = paths.filter((p) => p !== artifact && /\.(md|txt)$/i.test(p)).sort((a, b) => Number(b.startsWith('docs/')) - Number(a.startsWith('docs/')) || a.localeCompare(b)).slice(0, 3);

    let calls: ToolCall[] = [];
    if (offered.has('list_files') && !calledNames.has('list_files')) calls = [call('list_files', {})];
    else if (offered.has('read_file') && !calledNames.has('read_file') && inputs.length) calls = inputs.map((p) => call('read_file', { path: p }));
    else if (artifact && offered.has('write_file') && !calledNames.has('write_file')) {
      const reads = called.filter((c) => c.name === 'read_file').map((c) => ({ path: String(c.arguments.path), text: results.get(c.id) ?? '' }));
      calls = [call('write_file', { path: artifact, content: draft(stage, user, reads) })];
    }
    if (calls.length) {
      for (const c of calls) yield { type: 'tool_call', call: c };
      yield { type: 'usage', input_tokens: input, output_tokens: calls.length * 8 };
      yield { type: 'finish', reason: 'tool_calls' };
      return;
    }

    const readPaths = called.filter((c) => c.name === 'read_file').map((c) => String(c.arguments.path));
    const wrote = called.find((c) => c.name === 'write_file' && !(results.get(c.id) ?? '').startsWith('Error:'));
    const did: string[] = [];
    if (listing) did.push(`listed the workspace (${paths.length} file${paths.length === 1 ? '' : 's'})`);
    if (readPaths.length) did.push(`read ${readPaths.join(', ')}`);
    if (wrote) did.push(`wrote a first draft of ${String(wrote.arguments.path)}`);
    const text =
      `No language model is configured, so this reply comes from the built-in offline assistant. ` +
      `For the ${stage} stage I ${did.length ? did.join(', then ') : 'looked at your message'}. ` +
      `Your message was: "${user.trim().slice(0, 200)}". ` +
      `To get real answers, set LLM_PROVIDER (and LLM_MODEL, LLM_API_KEY) for the server, or bind a model to this agent in the studio.`;
    const chunks = text.match(/\S+\s*/g) ?? [text];
    for (let i = 0; i < chunks.length; i += 4) yield { type: 'text', delta: chunks.slice(i, i + 4).join('') };
    yield { type: 'usage', input_tokens: input, output_tokens: words(text) };
    yield { type: 'finish', reason: 'stop' };
  }
}

function draft(stage: string, message: string, reads: Array<{ path: string; text: string }>): string {
  const sections = STAGE_SECTIONS[stage] ?? DEFAULT_SECTIONS;
  const lines = [`# ${title(stage)}`, '', '> Draft written by the offline assistant (no language model is configured). Edit it freely.', '', '## Request', '', message.trim() || '(no message)', ''];
  if (reads.length) {
    lines.push('## Inputs', '');
    for (const r of reads) {
      const heading = r.text.split('\n').find((l) => l.trim()) ?? '';
      lines.push(`- \`${r.path}\`${heading ? ` — ${heading.replace(/^#+\s*/, '').slice(0, 120)}` : ''}`);
    }
    lines.push('');
  }
  for (const s of sections) lines.push(`## ${s}`, '', '- TODO', '');
  return lines.join('\n');
}
