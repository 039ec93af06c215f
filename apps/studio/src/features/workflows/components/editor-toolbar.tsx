import { useCallback } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { Workflow } from '../../../shared/api-types';
import { Badge, SystemBadge } from '../../../shared/components/badge';
import { Icon } from '../../../shared/components/icon';
import { useToast } from '../../../shared/components/toast';
import { errorMessage } from '../../../shared/http';
import { VersionHistory } from './version-history';
import { useCloneWorkflow } from '../hooks/use-workflows';

/** An editor panel's toggle: whether it is open, and the function that flips it. */
type PanelToggle = readonly [boolean, () => void];

/**
 * The editor's header: title, version and saved state, the problems button, undo/redo, panel toggles,
 * fit/layout, Run, and Save (or "Clone to edit" for a read-only system workflow).
 */
export function EditorToolbar({
  workflow,
  readOnly,
  version,
  dirty,
  errorCount,
  warningCount,
  showProblems,
  onToggleProblems,
  canUndo,
  canRedo,
  onUndo,
  onRedo,
  palette: [paletteOpen, togglePalette],
  properties: [propsOpen, toggleProps],
  minimap: [mapOpen, toggleMap],
  onFit,
  onLayout,
  onSave,
  saving,
  onRestored,
}: {
  workflow: Workflow;
  readOnly: boolean;
  version: number;
  dirty: boolean;
  errorCount: number;
  warningCount: number;
  showProblems: boolean;
  onToggleProblems: () => void;
  canUndo: boolean;
  canRedo: boolean;
  onUndo: () => void;
  onRedo: () => void;
  palette: PanelToggle;
  properties: PanelToggle;
  minimap: PanelToggle;
  onFit: () => void;
  onLayout: () => void;
  onSave: () => void;
  saving: boolean;
  /** a version was restored (a new save): reload the editor */
  onRestored: () => Promise<void>;
}) {
  const toast = useToast();
  const navigate = useNavigate();
  const cloneWorkflow = useCloneWorkflow();

  const cloneToEdit = useCallback(() => {
    cloneWorkflow.mutate(
      { id: workflow.id },
      {
        onSuccess: (c) => {
          toast.show(`Cloned as “${c.name}”`);
          void navigate(`/studio/workflows/${c.id}`);
        },
        onError: (e) => toast.show(`Clone failed: ${errorMessage(e)}`, 'error'),
      },
    );
  }, [cloneWorkflow, navigate, toast, workflow.id]);

  return (
    <header className="editor-toolbar">
      <div className="editor-title">
        <Link to="/studio/workflows" className="btn-link small" aria-label="Back to workflows">
          ← Back
        </Link>
        <h1 title={workflow.name} data-testid="editor-title">
          {workflow.name} {readOnly && <SystemBadge />}
        </h1>
        <Badge kind="info">{workflow.domain}</Badge>
        <span className="muted small" data-testid="graph-version">
          v{version}
        </span>
        {!readOnly && (
          <span
            className={`dirty-indicator${dirty ? ' is-dirty' : ''}`}
            data-testid="dirty-indicator"
            data-dirty={dirty ? 'true' : 'false'}
            aria-live="polite"
          >
            {dirty ? '● Unsaved' : 'Saved'}
          </span>
        )}
      </div>
      <div className="editor-actions" role="toolbar" aria-label="Editor actions">
        <button
          type="button"
          className={`btn btn-small problems-toggle${errorCount ? ' has-errors' : warningCount ? ' has-warnings' : ''}`}
          onClick={onToggleProblems}
          aria-expanded={showProblems}
          aria-label={`${errorCount} errors, ${warningCount} warnings`}
          title="Show problems"
          data-testid="problems-toggle"
        >
          {errorCount} {errorCount === 1 ? 'error' : 'errors'} · {warningCount}{' '}
          {warningCount === 1 ? 'warning' : 'warnings'}
        </button>
        {!readOnly && (
          <>
            <button
              type="button"
              className="btn btn-small"
              onClick={onUndo}
              disabled={!canUndo}
              aria-label="Undo"
              title="Undo (Ctrl/⌘+Z)"
              data-testid="undo"
            >
              <Icon name="undo" size={14} />
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={onRedo}
              disabled={!canRedo}
              aria-label="Redo"
              title="Redo (Ctrl/⌘+Shift+Z)"
              data-testid="redo"
            >
              <Icon name="redo" size={14} />
            </button>
          </>
        )}
        {!readOnly && (
          <button
            type="button"
            className="btn btn-small"
            onClick={togglePalette}
            aria-pressed={paletteOpen}
            data-testid="toggle-palette"
            title="Show or hide the node palette"
          >
            Palette
          </button>
        )}
        <button
          type="button"
          className="btn btn-small"
          onClick={toggleProps}
          aria-pressed={propsOpen}
          data-testid="toggle-properties"
          title="Show or hide the properties panel"
        >
          Properties
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={toggleMap}
          aria-pressed={mapOpen}
          data-testid="toggle-minimap"
          title="Show or hide the mini map"
        >
          Map
        </button>
        <button type="button" className="btn btn-small" onClick={onFit} data-testid="fit-view">
          Fit view
        </button>
        {!readOnly && (
          <button type="button" className="btn btn-small" onClick={onLayout} data-testid="auto-layout">
            Auto layout
          </button>
        )}
        <VersionHistory
          workflow={workflow}
          version={version}
          dirty={dirty}
          readOnly={readOnly}
          onRestored={onRestored}
        />
        <Link className="btn btn-small" to={`/studio/workflows/${workflow.id}/run`} data-testid="editor-run">
          Run ▸
        </Link>
        {readOnly ? (
          <button
            type="button"
            className="btn btn-primary"
            onClick={cloneToEdit}
            disabled={cloneWorkflow.isPending}
            data-testid="clone-to-edit"
          >
            {cloneWorkflow.isPending ? 'Cloning…' : 'Clone to edit'}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-primary"
            onClick={onSave}
            disabled={saving}
            data-testid="save-graph"
            title="Save (Ctrl/⌘+S)"
          >
            {saving ? 'Saving…' : 'Save'}
          </button>
        )}
      </div>
    </header>
  );
}
