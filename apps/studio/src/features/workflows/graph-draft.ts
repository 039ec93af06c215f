// The workflow editor's draft and every edit to it, as pure functions (no React, no DOM): load a saved
// graph, add a node with a unique key, connect, delete with incident edges, edit properties, move,
// undo/redo history, map validation problems onto nodes/edges, and convert to/from React Flow.
// Nodes carry a client-only `uid` so renaming a node_key never breaks edges or selection; edges refer
// to uids and are turned back into node_keys only for the saved payload.

//
// The parts live in draft/; this module is their one entry point.
export * from './draft/draft-model';
export * from './draft/draft-edits';
export * from './draft/draft-history';
export * from './draft/draft-problems';
export * from './draft/problem-list';
export * from './draft/stage-colors';
export * from './draft/flow-elements';
export * from './draft/canvas-geometry';
export * from './draft/draft-clipboard';
export * from './draft/draft-insert';
