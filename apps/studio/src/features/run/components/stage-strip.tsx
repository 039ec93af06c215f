import { Icon } from '../../../shared/components/icon';

// All stages of the bound pack, the current one highlighted; click a stage to move the project there.
export function StageStrip({
  stages,
  current,
  disabled,
  onSelect,
  gateAfter,
}: {
  stages: readonly string[];
  current: string | null;
  disabled: boolean;
  onSelect: (stage: string) => void;
  gateAfter?: string | null;
}) {
  const currentIndex = current ? stages.indexOf(current) : -1;
  return (
    <nav className="stage-strip" aria-label="Stages" data-testid="stage-strip">
      <ol>
        {stages.map((s, i) => {
          const state = i === currentIndex ? 'current' : i < currentIndex ? 'past' : 'future';
          return (
            <li key={s} className={`stage stage-${state}`}>
              <button
                type="button"
                onClick={() => onSelect(s)}
                disabled={disabled || i === currentIndex}
                aria-current={i === currentIndex ? 'step' : undefined}
                data-testid={`stage-${s}`}
                data-state={state}
                title={i === currentIndex ? 'Current stage' : `Move the project to ${s}`}
              >
                <span className="stage-index">{i < currentIndex ? <Icon name="check" size={12} /> : i + 1}</span>
                <span className="stage-name">{s}</span>
                {gateAfter === s && (
                  <Icon name="gate" size={14} className="stage-gate" title="Gate waiting for approval" />
                )}
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
