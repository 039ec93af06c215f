/**
 * The scripted three-tool turn the crash tests kill in the middle (durable-runs.spec.ts, cluster.spec.ts):
 * a plan that writes two files, a slow edit call (the kill lands while it streams), and the answer.
 */
import type { FakeTurn } from './fake-llm';

export const plan: FakeTurn = {
  text: 'Planning the two files. ',
  tool_calls: [
    { name: 'write_file', arguments: { path: 'a.md', content: 'alpha' } },
    { name: 'write_file', arguments: { path: 'b.md', content: 'beta' } },
  ],
};
export const edit: FakeTurn = {
  text: 'Now I edit the first file, slowly and carefully, before I finish the work. ',
  tokenIntervalMs: 150,
  tool_calls: [{ name: 'edit_file', arguments: { path: 'a.md', old: 'alpha', new: 'ALPHA' } }],
};
export const answer: FakeTurn = { text: 'All three changes are done.' };
