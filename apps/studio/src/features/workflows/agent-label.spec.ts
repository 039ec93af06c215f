import assert from 'node:assert/strict';
import { agentLabels } from './agent-label';

describe('agentLabels', () => {
  it('names agents by name, role and system flag; repeated labels get the id', () => {
    const labels = agentLabels([
      { id: 1, name: 'Writer', role: 'drafts', is_system: false },
      { id: 2, name: 'Writer', role: 'drafts', is_system: false },
      { id: 3, name: 'Writer', role: 'edits' },
      { id: 4, name: 'Analyst', role: '', is_system: true },
    ]);
    assert.deepEqual(
      [...labels.values()],
      ['Writer — drafts · #1', 'Writer — drafts · #2', 'Writer — edits', 'Analyst (system)'],
    );
  });
});
