// The editor's panel toggles (palette, properties, mini map), each remembered in localStorage.
import { useCallback, useState } from 'react';

/** A panel's open/closed state, remembered in localStorage. */
export function usePanel(key: string, initial: boolean): [boolean, () => void] {
  const [open, setOpen] = useState<boolean>(() => {
    try {
      const v = localStorage.getItem(`studio.editor.${key}`);
      return v === null ? initial : v === '1';
    } catch {
      return initial;
    }
  });
  const toggle = useCallback(() => {
    setOpen((o) => {
      try {
        localStorage.setItem(`studio.editor.${key}`, o ? '0' : '1');
      } catch {
        // storage unavailable: the choice lasts for this page only
      }
      return !o;
    });
  }, [key]);
  return [open, toggle];
}
