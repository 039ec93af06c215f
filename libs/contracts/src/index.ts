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
