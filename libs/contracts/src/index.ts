/**
 * The API contract shared by the studio and integrations. `api.d.ts` is generated from the service's
 * /openapi.json by `npm run openapi` (openapi-typescript); CI fails when it is stale.
 */
export type { components, operations, paths } from './api';
import type { components } from './api';

type Schemas = components['schemas'];
/** A schema from the OpenAPI document by name, e.g. `Schema<'Problem'>`. */
export type Schema<K extends keyof Schemas> = Schemas[K];
export type Problem = Schemas['Problem'];

/** The 14 events of GET /agent/stream, in the order docs/API.md lists them. */
export const STREAM_EVENTS = [
  'status',
  'pack',
  'workflow',
  'stage',
  'node',
  'agent',
  'content',
  'tool_call',
  'tool_result',
  'files_changed',
  'awaiting_gate',
  'error',
  'done',
  'close',
] as const;
export type StreamEventName = (typeof STREAM_EVENTS)[number];

/**
 * The data of each stream event, from the event schemas of the OpenAPI document (the server declares
 * them once, in its runtime; see apps/api/src/modules/runtime/runtime.types.ts).
 */
export interface StreamEventData {
  status: Schemas['StatusEvent'];
  pack: Schemas['PackEvent'];
  workflow: Schemas['WorkflowEvent'];
  stage: Schemas['StageEvent'];
  node: Schemas['NodeEvent'];
  agent: Schemas['AgentEvent'];
  content: Schemas['ContentEvent'];
  tool_call: Schemas['ToolCallEvent'];
  tool_result: Schemas['ToolResultEvent'];
  files_changed: Schemas['FilesChangedEvent'];
  awaiting_gate: Schemas['AwaitingGateEvent'];
  error: Schemas['ErrorEvent'];
  done: Schemas['DoneEvent'];
  close: Record<string, never>;
}
/** One event of GET /agent/stream, as `{ event, data }`. */
export type StreamEvent = { [N in StreamEventName]: { event: N; data: StreamEventData[N] } }[StreamEventName];
