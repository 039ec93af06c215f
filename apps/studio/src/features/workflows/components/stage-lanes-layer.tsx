import { ViewportPortal } from '@xyflow/react';
import type { StageLane } from '../graph-draft';

/** The tinted stage bands, drawn in flow coordinates behind the nodes. */
export function StageLanesLayer({ lanes }: { lanes: readonly StageLane[] }) {
  return (
    <ViewportPortal>
      <div className="stage-lanes" aria-hidden="true">
        {lanes.map((l) => (
          <div
            key={l.stage}
            className="stage-lane"
            data-testid="stage-lane"
            data-stage={l.stage}
            style={{
              transform: `translate(${l.x}px, ${l.y}px)`,
              width: l.width,
              height: l.height,
              ['--stage-color' as string]: l.color,
            }}
          >
            <span className="stage-lane-label">{l.stage}</span>
          </div>
        ))}
      </div>
    </ViewportPortal>
  );
}
