// The editor's keyboard shortcuts (Ctrl/⌘ + S, A, C, V, D, Z, Shift+Z, Y) and its guards against
// leaving with unsaved changes (closing the tab, or navigating away inside the app).
import { useEffect, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { useBlocker } from 'react-router-dom';
import { commit, copySelection, pasteClip, type Clip, type DraftHistory } from '../graph-draft';

function isTextTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

export function useEditorShortcuts({
  readOnly,
  save,
  undo,
  redo,
  histRef,
  selectedRef,
  clipboard,
  setHist,
  setSelected,
  setNotice,
}: {
  readOnly: boolean;
  save: () => void;
  undo: () => void;
  redo: () => void;
  histRef: RefObject<DraftHistory>;
  selectedRef: RefObject<ReadonlySet<string>>;
  /** Ctrl/⌘+C keeps the copied nodes here (per editor) for Ctrl/⌘+V; Ctrl/⌘+D duplicates at once. */
  clipboard: RefObject<Clip | null>;
  setHist: Dispatch<SetStateAction<DraftHistory>>;
  setSelected: Dispatch<SetStateAction<ReadonlySet<string>>>;
  setNotice: Dispatch<SetStateAction<string | null>>;
}): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (!mod) return;
      const k = e.key.toLowerCase();
      if (k === 's') {
        e.preventDefault();
        save();
        return;
      }
      if (isTextTarget(e.target)) return;
      if (k === 'a') {
        // select every node on the canvas, not the page's text
        e.preventDefault();
        setSelected(new Set(histRef.current.draft.nodes.map((n) => n.uid)));
        return;
      }
      if (k === 'c') {
        const clip = copySelection(histRef.current.draft, selectedRef.current);
        if (clip) {
          e.preventDefault();
          clipboard.current = clip;
          setNotice(null);
        }
        return;
      }
      if (readOnly) return;
      if (k === 'v' || k === 'd') {
        const clip = k === 'd' ? copySelection(histRef.current.draft, selectedRef.current) : clipboard.current;
        if (!clip) return;
        e.preventDefault();
        const r = pasteClip(histRef.current.draft, clip);
        setHist((h) => commit(h, r.draft));
        setSelected(new Set(r.uids));
        return;
      }
      if (k === 'z' && !e.shiftKey) {
        e.preventDefault();
        undo();
      } else if ((k === 'z' && e.shiftKey) || k === 'y') {
        e.preventDefault();
        redo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [clipboard, histRef, readOnly, redo, save, selectedRef, setHist, setNotice, setSelected, undo]);
}

/** Asks before leaving with unsaved changes; returns the router blocker for the confirm dialog. */
export function useLeaveGuard(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  return useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);
}
