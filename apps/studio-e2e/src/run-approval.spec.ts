/**
 * Per-tool approval on the run page (docs/API.md, "Per-tool approval"): an agent whose write_file calls
 * require approval stops its turn at the call; the page shows the call as a card (tool, arguments), and
 * Approve runs it — the file lands and the page follows the rest of the run. A server of its own whose
 * model is the repo's fake LLM: every model call asks for the same write, so the next call waits again.
 */
import { expect, test } from './support/fixtures';

test.use({
  serverConfig: {
    llm: {
      text: 'Saving the notes. ',
      tool_calls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'hi' } }],
    },
  },
});

test('a tool call awaiting approval is a card on the run page; Approve runs it and the run goes on', async ({
  page,
  consoleErrors,
}, testInfo) => {
  const agent = await page.request.post('/studio/api/agents', {
    data: {
      name: 'Careful writer',
      tool_allowlist: ['write_file'],
      tools_requiring_approval: ['write_file'],
      max_iterations: 2,
    },
  });
  expect(agent.status(), await agent.text()).toBe(201);
  const pack = await page.request.post('/studio/api/workflows', { data: { name: 'Approval pack', domain: 'pdlc' } });
  const packId = (await pack.json()).id;
  const graph = await page.request.put(`/studio/api/workflows/${packId}/graph`, {
    data: {
      nodes: [{ node_key: 'write', type: 'agent', agent_id: (await agent.json()).id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'write' }],
    },
  });
  expect(graph.status(), await graph.text()).toBe(200);
  const bound = await page.request.put('/agent/workflows/careful', {
    data: { domain: 'pdlc', stage: 'discover', pack_id: packId },
  });
  expect(bound.status()).toBe(200);

  await page.goto(`/studio/workflows/${packId}/run?project=careful`);
  await page.getByTestId('chat-input').fill('Write the notes');
  await page.getByTestId('chat-send').click();

  const card = page.getByTestId('approval-card');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('approval-tool')).toHaveText('write_file');
  await expect(card.getByTestId('approval-arguments')).toContainText('"path": "notes.md"');
  // the next message waits for the decision
  await expect(page.getByTestId('chat-input')).toBeDisabled();
  const before = (await (await page.request.get('/agent/workflows/careful')).json()).awaiting_approval;
  expect(before).toMatchObject({ name: 'write_file' });
  expect((await page.request.get('/studio/api/projects/careful/files/notes.md')).status()).toBe(404);
  await page.screenshot({ path: testInfo.outputPath('approval-card.png') });

  await card.getByTestId('approval-approve').click();
  // the approved write lands, and the run goes on: its next call asks again (a new card, another call)
  await expect
    .poll(async () => (await page.request.get('/studio/api/projects/careful/files/notes.md')).status(), {
      message: 'the approved write lands',
    })
    .toBe(200);
  await expect
    .poll(async () => (await (await page.request.get('/agent/workflows/careful')).json()).awaiting_approval?.call_id, {
      message: 'the next call waits',
    })
    .not.toBe(before.call_id);
  await expect(page.getByTestId('approval-card')).toBeVisible();
  // history keeps the approved call (its result) and marks the turn that waits again
  await expect(page.locator('[data-testid="chat-message"][data-state="awaiting_approval"]')).toBeVisible();
  expect(consoleErrors).toEqual([]);
});
