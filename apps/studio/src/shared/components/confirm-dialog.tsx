// A modal "are you sure" built on <dialog>; the confirm button shows progress and errors.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { errorMessage } from '../http';

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel = 'Delete',
  danger = true,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel?: string;
  danger?: boolean;
  pending?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="modal"
      role="alertdialog"
      aria-labelledby={titleId}
      data-testid="confirm-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      {open && (
        <div className="modal-inner">
          <h2 id={titleId}>{title}</h2>
          {children && <div className="modal-body">{children}</div>}
          {error != null && (
            <p className="field-error" role="alert">
              {errorMessage(error)}
            </p>
          )}
          <div className="modal-actions">
            <button type="button" className="btn" onClick={onCancel} autoFocus>
              Cancel
            </button>
            <button
              type="button"
              className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`}
              onClick={onConfirm}
              disabled={pending}
              data-testid="confirm-ok"
            >
              {pending ? 'Working…' : confirmLabel}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}
