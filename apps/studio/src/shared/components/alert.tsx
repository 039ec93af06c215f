import type { ReactNode } from 'react';

export function Alert({
  kind = 'error',
  title,
  children,
  action,
  testId,
  onDismiss,
}: {
  kind?: 'error' | 'warning' | 'info' | 'success';
  title?: string;
  children?: ReactNode;
  action?: ReactNode;
  testId?: string;
  onDismiss?: () => void;
}) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'} data-testid={testId}>
      <div className="alert-body">
        {title && <strong className="alert-title">{title}</strong>}
        {children && <div>{children}</div>}
      </div>
      {action && <div className="alert-action">{action}</div>}
      {onDismiss && (
        <button type="button" className="btn-icon" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}
