// One colour per stage, in the pack's stage order, shared by the nodes, the lanes and the legend.

const STAGE_PALETTE = [
  '#6366f1',
  '#0ea5e9',
  '#10b981',
  '#f59e0b',
  '#ef4444',
  '#8b5cf6',
  '#14b8a6',
  '#ec4899',
  '#84cc16',
  '#f97316',
];
export const NO_STAGE_COLOR = '#94a3b8';

export function stageColor(stage: string | null | undefined, stages: readonly string[]): string {
  if (!stage) return NO_STAGE_COLOR;
  const i = stages.indexOf(stage);
  if (i < 0) return NO_STAGE_COLOR;
  return STAGE_PALETTE[i % STAGE_PALETTE.length];
}
