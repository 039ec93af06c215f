// A side panel built on the native <dialog> (focus trap, Escape to close, inert background).
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function Drawer({
  open,
  title,
  onClose,
  children,
  footer,
  testId,
  wide,
}: {
  open: boolean;
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  testId?: string;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  /** Something was typed: a stray click on the backdrop must not throw it away (issue 13 item 10). */
  const edited = useRef(false);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      edited.current = false;
      d.showModal();
      // showModal focuses the first focusable element (the ×); typing belongs in the first field
      const field = d.querySelector<HTMLElement>(
        '.drawer-body input:not([type=hidden]):not([disabled]), .drawer-body textarea:not([disabled]), .drawer-body select:not([disabled])',
      );
      field?.focus();
    }
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`drawer${wide ? ' drawer-wide' : ''}`}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onInput={() => {
        edited.current = true;
      }}
      onClick={(e) => {
        if (e.target === ref.current && !edited.current) onClose();
      }}
    >
      {open && (
        <div className="drawer-inner">
          <header className="drawer-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="btn-icon" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </header>
          <div className="drawer-body">{children}</div>
          {footer && <footer className="drawer-footer">{footer}</footer>}
        </div>
      )}
    </dialog>
  );
}
