import type { Project } from '../projects/project.entity';
import type { StageChange } from './message.entity';

/**
 * The stage move an Advance made, from the turn's events: an Advance moves first, so its `stage` event is
 * the turn's first; the gate is the one that was pending on the stage it left (null when none was).
 */
export function advanceStageChange(project: Project | null, ev: { event: string; data: unknown }): StageChange | null {
  if (ev.event !== 'stage') return null;
  const { from, to } = ev.data as { from: string; to: string };
  const gate = project?.awaiting_gate?.stage === from ? project.awaiting_gate.node_key : null;
  return { from, to, gate };
}
