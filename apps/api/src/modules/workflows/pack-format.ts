// The portable pack document's format ("service-workflow-pack", version 1): its shape and bounds.
// Export (pack-export.ts) writes it and import (pack-import.ts) reads it.
import type { GraphEdge, GraphNode } from '@service/workflow-graph';
import type { ProviderKind } from '../models/model.entity';

export const PACK_FORMAT = 'service-workflow-pack';
export const PACK_VERSION = 1;
/** At most this many models, skills and agents in one document (a graph has at most 2,000 nodes). */
export const MAX_DEFINITIONS = 2000;
export const MAX_SKILLS_PER_AGENT = 64;
export const MAX_ITERATIONS = 50;
export const MAX_TOKENS = 200000;
export const MAX_API_BASE = 2048;
export const MAX_ARTIFACT_HINT = 512;
export const REF_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export interface PackHeader {
  name: string;
  slug: string;
  description: string;
  domain: string;
  stages: string[];
}
export interface ModelDef {
  ref: string;
  label: string;
  provider: ProviderKind;
  model_id: string;
  api_base: string | null;
  temperature: number | null;
  max_tokens: number | null;
}
export interface SkillDef {
  ref: string;
  name: string;
  description: string;
  prompt_md: string;
  tool_allowlist: string[];
  /** names from tool_allowlist whose calls wait for approval (left out of a document when empty) */
  tools_requiring_approval?: string[];
  artifact_hint: string;
}
export interface AgentDef {
  ref: string;
  name: string;
  role: string;
  system_prompt: string;
  model_ref: string | null;
  skill_refs: string[];
  tool_allowlist: string[];
  /** names from tool_allowlist whose calls wait for approval (left out of a document when empty) */
  tools_requiring_approval?: string[];
  max_iterations: number;
}
export interface NodeDef {
  node_key: string;
  type: GraphNode['type'];
  agent_ref: string | null;
  stage_label: string | null;
  config: Record<string, unknown>;
  position_x: number;
  position_y: number;
}
export interface PackDocument {
  format: typeof PACK_FORMAT;
  version: typeof PACK_VERSION;
  pack: PackHeader;
  models: ModelDef[];
  skills: SkillDef[];
  agents: AgentDef[];
  nodes: NodeDef[];
  edges: GraphEdge[];
}
