/** What the projects service answers with: a project, its workflow state and the packs it can bind (docs/API.md). */
import type { PendingApproval } from '../runtime/runtime.types';
import type { AwaitingGate, Project } from './project.entity';

export interface WorkflowState {
  project_slug: string;
  domain: string | null;
  stage: string | null;
  pack_id: number | null;
  stages: string[];
  awaiting_gate: AwaitingGate | null;
  /** The project's turn in flight, if any: a client re-attaches to it with `last_event_id` (docs/API.md). */
  running_run_id: string | null;
  /** The project's turn stopped at a tool call waiting for a decision (docs/decisions/runtime.md). */
  awaiting_approval: (PendingApproval & { run_id: string }) | null;
}

export interface ProjectRecord {
  id: number;
  owner_id: number;
  slug: string;
  name: string;
  pack_id: number | null;
  domain: string | null;
  stage: string | null;
  awaiting_gate: AwaitingGate | null;
  created_at: Date;
  updated_at: Date;
}

export interface PackListItem {
  id: string;
  pack_id: number;
  slug: string;
  name: string;
  domain: string;
  stages: string[];
  is_system: boolean;
}

/** What a caller may ask of a project's binding; absent fields keep (or derive) the current value. */
export interface BindRequest {
  pack_id?: number | null;
  domain?: string | null;
  stage?: string | null;
}

/** A project row as the API shows it. */
export function toRecord(p: Project): ProjectRecord {
  return {
    id: p.id,
    owner_id: p.owner_id,
    slug: p.slug,
    name: p.name,
    pack_id: p.pack_id,
    domain: p.domain,
    stage: p.stage,
    awaiting_gate: p.awaiting_gate,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}
