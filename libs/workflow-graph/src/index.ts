// @service/workflow-graph: the pure graph logic shared by the API and the studio (no Nest, no React,
// no Node APIs). Validation, the condition language, traversal and auto layout.

export * from './types';
export * from './condition';
export * from './validate-graph';
export * from './traverse';
export * from './layout';
