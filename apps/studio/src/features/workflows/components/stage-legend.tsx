import { NO_STAGE_COLOR, stageColor } from '../graph-draft';

export function StageLegend({
  stages,
  counts,
}: {
  stages: readonly string[];
  counts: ReadonlyMap<string | null, number>;
}) {
  return (
    <div className="legend" aria-label="Stage colours" data-testid="stage-legend">
      {stages.map((s) => (
        <span key={s} className="legend-item">
          <span className="legend-swatch" style={{ background: stageColor(s, stages) }} aria-hidden="true" />
          {s}
          <span className="legend-count">{counts.get(s) ?? 0}</span>
        </span>
      ))}
      {(counts.get(null) ?? 0) > 0 && (
        <span className="legend-item">
          <span className="legend-swatch" style={{ background: NO_STAGE_COLOR }} aria-hidden="true" />
          no stage
          <span className="legend-count">{counts.get(null)}</span>
        </span>
      )}
    </div>
  );
}
