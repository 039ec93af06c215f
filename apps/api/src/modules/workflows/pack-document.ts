/**
 * The portable pack document (format "service-workflow-pack", version 1): what export writes and
 * import reads. Pure functions, no database.
 *
 * - `buildPackDocument` turns records into a document whose ids are document-local refs
 *   (`model-1`, `skill-1`, `agent-1`, numbered in order of first use), so the same pack always
 *   exports to the same document. No secrets, owners, timestamps or database ids.
 * - `readPackDocument` checks an untrusted document completely before anything is created: exact key
 *   sets everywhere (unknown keys, `__proto__` included, are errors), bounds, refs that resolve, model
 *   URLs against MODEL_HOSTS, and the graph through `validateGraph` against the agents to be created.
 *   Values are copied field by field into fresh objects; nothing from the input is merged or spread.
 *
 * The format's types and bounds are in pack-format.ts, export in pack-export.ts, import in
 * pack-import.ts (with its field readers in pack-fields.ts).
 */

export * from './pack-format';
export { agentIdsOf, buildPackDocument, type PackSource } from './pack-export';
export { readPackDocument, type ImportPlan, type ReadResult } from './pack-import';
