/** The demo's workspace: a small read-only sample project in memory (writes are tool errors). */
import type { Workspace } from '../runtime/runtime.types';

const FILES: Record<string, string> = {
  'README.md':
    '# Pocket Budget\n\nA sample project for the public demo: a mobile app that helps students track shared expenses.\n',
  'docs/discovery.md':
    '# Discovery\n\n## Problem\nStudents sharing flats lose track of who paid what.\n\n## Users\n- Students in shared housing\n- Parents who top up budgets\n\n## Open questions\n- Do users want bank sync or manual entry?\n',
  'docs/notes.md':
    '# Interview notes\n\n- "I just want to know what I owe at the end of the month."\n- Splitting rent and utilities is the main pain.\n',
};

export function sampleWorkspace(): Workspace {
  const entries = Object.entries(FILES).sort(([a], [b]) => a.localeCompare(b));
  return {
    readOnly: true,
    async list(dir) {
      return entries
        .filter(([p]) => !dir || p === dir || p.startsWith(dir + '/'))
        .map(([path, content]) => ({ path, size: Buffer.byteLength(content), revision: 1 }));
    },
    async read(path) {
      return FILES[path] !== undefined ? { content: FILES[path], revision: 1 } : null;
    },
    async write() {
      throw new Error('read-only');
    },
    async search(query, dir) {
      const q = query.toLowerCase();
      const hits: Array<{ path: string; line: number; text: string }> = [];
      for (const [path, content] of entries) {
        if (dir && !(path === dir || path.startsWith(dir + '/'))) continue;
        content.split('\n').forEach((text, i) => {
          if (text.toLowerCase().includes(q)) hits.push({ path, line: i + 1, text });
        });
      }
      return hits;
    },
  };
}
