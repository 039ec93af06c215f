// Folds the event stream of one turn (docs/API.md) into what the chat shows: streamed text, tool-call
// cards, "X is working" lines, stage moves, file changes, gates and errors. Pure; see its spec.
import type { AwaitingGate, StreamEventData, Usage } from '../../shared/api-types';

export interface StreamEventLike {
  id: string | null;
  name: string;
  data: unknown;
}

export type TranscriptItem =
  | { kind: 'text'; key: string; text: string }
  | {
      kind: 'tool';
      key: string;
      callId: string;
      name: string;
      arguments: unknown;
      result: { ok: boolean; output: unknown; error?: string } | null;
    }
  | { kind: 'activity'; key: string; text: string; tone: 'agent' | 'node' | 'stage' | 'files' | 'status' }
  | { kind: 'gate'; key: string; gate: AwaitingGate }
  | { kind: 'error'; key: string; code: string; message: string };

export type TurnStatus = 'running' | 'done' | 'error' | 'stopped';

export interface Turn {
  id: string;
  message: string;
  advance: boolean;
  runId: string | null;
  status: TurnStatus;
  items: TranscriptItem[];
  reply: string | null;
  usage: Usage | null;
  provider: string | null;
  model: string | null;
  agent: { name: string; role: string | null } | null;
  closed: boolean;
}

export function newTurn(id: string, message: string, advance: boolean): Turn {
  return {
    id,
    message,
    advance,
    runId: null,
    status: 'running',
    items: [],
    reply: null,
    usage: null,
    provider: null,
    model: null,
    agent: null,
    closed: false,
  };
}

function obj(data: unknown): Record<string, unknown> {
  return data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
}

// event fields are strings (numbers for ids); anything else is not shown rather than as "[object Object]"
const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

export function agentWorkingText(name: string, role: string | null | undefined): string {
  return `${name || 'Agent'}${role ? ` (${role})` : ''} is working`;
}

/** The seq of the event an item began with (`<run id>:<seq>`); 0 for an item without an event id. */
function seqOf(key: string): number {
  const m = /:(\d+)$/.exec(key);
  return m ? Number(m[1]) : 0;
}

const QUEUED_TEXT = 'Queued: waiting for a worker';

export function reduceTurn(turn: Turn, ev: StreamEventLike): Turn {
  const key = ev.id ?? `${ev.name}#${turn.items.length}`;
  const d = obj(ev.data);
  const push = (item: TranscriptItem): Turn => ({ ...turn, items: [...turn.items, item] });
  switch (ev.name) {
    case 'status': {
      const s = d as Partial<StreamEventData['status']>;
      const next: Turn = {
        ...turn,
        runId: s.run_id !== undefined && s.run_id !== null ? String(s.run_id) : turn.runId,
        provider: s.provider ?? turn.provider,
        model: s.model ?? turn.model,
      };
      if (s.state === 'resumed') {
        // a run resumed after a restart: what came after its last checkpoint was superseded (docs/API.md)
        const drop = typeof s.drop_after_seq === 'number' ? s.drop_after_seq : Infinity;
        const items = next.items.filter((it) => seqOf(it.key) <= drop);
        return {
          ...next,
          items: [...items, { kind: 'activity', key, text: 'Run resumed after a restart', tone: 'status' }],
        };
      }
      // cluster mode: the turn waits for a worker until its `running` status (docs/API.md)
      if (s.state === 'queued')
        return { ...next, items: [...next.items, { kind: 'activity', key, text: QUEUED_TEXT, tone: 'status' }] };
      if (s.state === 'running')
        return { ...next, items: next.items.filter((it) => !(it.kind === 'activity' && it.text === QUEUED_TEXT)) };
      if (s.state && ['cancelled', 'interrupted', 'failed'].includes(s.state)) {
        return {
          ...next,
          items: [...next.items, { kind: 'activity', key, text: `Run ${String(s.state)}`, tone: 'status' }],
        };
      }
      return next;
    }
    case 'content': {
      const delta = str(d.delta);
      if (!delta) return turn;
      const last = turn.items[turn.items.length - 1];
      if (last && last.kind === 'text') {
        const items = turn.items.slice(0, -1);
        items.push({ ...last, text: last.text + delta });
        return { ...turn, items };
      }
      return push({ kind: 'text', key, text: delta });
    }
    case 'tool_call':
      return push({
        kind: 'tool',
        key,
        callId: str(d.call_id) || key,
        name: str(d.name),
        arguments: d.arguments,
        result: null,
      });
    case 'tool_result': {
      const callId = str(d.call_id);
      const result = { ok: d.ok === true, output: d.output, ...(d.error !== undefined ? { error: str(d.error) } : {}) };
      let found = false;
      const items = turn.items.map((it) => {
        if (!found && it.kind === 'tool' && it.callId === callId && it.result === null) {
          found = true;
          return { ...it, result };
        }
        return it;
      });
      if (found) return { ...turn, items };
      return push({ kind: 'tool', key, callId: callId || key, name: str(d.name), arguments: undefined, result });
    }
    case 'agent': {
      const name = str(d.name);
      const role = d.role === null || d.role === undefined ? null : str(d.role);
      return {
        ...push({ kind: 'activity', key, text: agentWorkingText(name, role), tone: 'agent' }),
        agent: { name, role },
      };
    }
    case 'node': {
      if (d.state !== 'started' || d.type === 'agent') return turn;
      const label = d.type === 'gate' ? 'Gate' : d.type === 'branch' ? 'Branch' : 'Node';
      return push({ kind: 'activity', key, text: `${label} ${str(d.node_key)}`, tone: 'node' });
    }
    case 'stage': {
      const from = str(d.from);
      const to = str(d.to);
      return push({ kind: 'activity', key, text: from ? `Stage ${from} → ${to}` : `Stage ${to}`, tone: 'stage' });
    }
    case 'files_changed': {
      const files = Array.isArray(d.files) ? (d.files as { path?: unknown; change?: unknown }[]) : [];
      if (files.length === 0) return turn;
      const text = files.map((f) => `${str(f.change) || 'changed'} ${str(f.path)}`).join(', ');
      return push({ kind: 'activity', key, text: `Files: ${text}`, tone: 'files' });
    }
    case 'approval':
      return push({ kind: 'activity', key, text: `Waiting for your approval: ${str(d.name)}`, tone: 'status' });
    case 'awaiting_gate': {
      const gate = { node_key: str(d.node_key), stage: str(d.stage), next_stage: str(d.next_stage) };
      return push({ kind: 'gate', key, gate });
    }
    case 'error':
      return {
        ...push({ kind: 'error', key, code: str(d.code) || 'error', message: str(d.message) || 'The run failed.' }),
        status: 'error',
      };
    case 'done': {
      const reply = typeof d.reply === 'string' ? d.reply : null;
      const usage = d.usage && typeof d.usage === 'object' ? (d.usage as Usage) : null;
      const hasText = turn.items.some((i) => i.kind === 'text');
      const items = !hasText && reply ? [...turn.items, { kind: 'text' as const, key, text: reply }] : turn.items;
      return {
        ...turn,
        items,
        reply,
        usage,
        runId: str(d.run_id) || turn.runId,
        status: turn.status === 'error' ? 'error' : 'done',
      };
    }
    case 'close':
      return { ...turn, closed: true, status: turn.status === 'running' ? 'done' : turn.status };
    default:
      return turn;
  }
}

/** The connection failed for good (after retries): show it as an error in the turn. */
export function failTurn(turn: Turn, message: string): Turn {
  if (turn.closed) return turn;
  return {
    ...turn,
    status: 'error',
    items: [...turn.items, { kind: 'error', key: `fail:${turn.items.length}`, code: 'connection', message }],
  };
}

export function stopTurn(turn: Turn): Turn {
  if (turn.closed) return turn;
  return {
    ...turn,
    status: 'stopped',
    items: [...turn.items, { kind: 'activity', key: `stop:${turn.items.length}`, text: 'Stopped', tone: 'status' }],
  };
}

/**
 * What stays of a finished turn once history shows its messages: its errors, its stage moves (so a gate
 * approval leaves a trace) and its token usage; null when there is nothing of that.
 */
export function turnSummary(turn: Turn): Turn | null {
  const items = turn.items.filter((i) => i.kind === 'error' || (i.kind === 'activity' && i.tone === 'stage'));
  if (items.length === 0 && !turn.usage) return null;
  return { ...turn, message: '', advance: false, items };
}
