import { useCallback, useState } from 'react';
import { Alert } from '../../../shared/components/alert';

/** Why the last save did not go through (shown above the canvas until dismissed). */
export type Banner =
  | { kind: 'conflict' }
  | { kind: 'invalid'; message: string }
  | { kind: 'blocked'; count: number }
  | { kind: 'error'; message: string };

/** The editor's banners: read-only, a failed save (with Reload after a conflict), and edit notices. */
export function EditorBanners({
  readOnly,
  banner,
  onDismissBanner,
  onReload,
  notice,
  onDismissNotice,
}: {
  readOnly: boolean;
  banner: Banner | null;
  onDismissBanner: () => void;
  onReload: () => Promise<void>;
  notice: string | null;
  onDismissNotice: () => void;
}) {
  const [reloading, setReloading] = useState(false);
  const reload = useCallback(async () => {
    setReloading(true);
    try {
      await onReload();
    } finally {
      setReloading(false);
    }
  }, [onReload]);

  return (
    <div className="editor-banners">
      {readOnly && (
        <Alert kind="info" testId="readonly-banner">
          This is a system workflow: it is read-only. Clone it to make your own editable copy.
        </Alert>
      )}
      {banner?.kind === 'conflict' && (
        <Alert
          kind="warning"
          testId="conflict-banner"
          title="This pack was changed elsewhere"
          action={
            <button
              type="button"
              className="btn btn-small btn-primary"
              onClick={() => void reload()}
              disabled={reloading}
              data-testid="conflict-reload"
            >
              {reloading ? 'Reloading…' : 'Reload'}
            </button>
          }
        >
          Someone saved a newer version of this graph. Reload to get it (your unsaved changes here will be lost).
        </Alert>
      )}
      {banner?.kind === 'invalid' && (
        <Alert kind="error" testId="save-error" title="Not saved" onDismiss={onDismissBanner}>
          {banner.message}
          <div className="small">The problems are marked on the canvas and listed under the problems button.</div>
        </Alert>
      )}
      {banner?.kind === 'blocked' && (
        <Alert kind="error" testId="validation-banner" title="Not saved" onDismiss={onDismissBanner}>
          Fix {banner.count} {banner.count === 1 ? 'error' : 'errors'} first; they are marked on the canvas.
        </Alert>
      )}
      {banner?.kind === 'error' && (
        <Alert kind="error" testId="save-error" title="Save failed" onDismiss={onDismissBanner}>
          {banner.message}
        </Alert>
      )}
      {notice && (
        <Alert kind="warning" testId="editor-notice" onDismiss={onDismissNotice}>
          {notice}
        </Alert>
      )}
    </div>
  );
}
