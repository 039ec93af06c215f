/**
 * Rerun from a node on the run page (docs/API.md, "Rerun from a node"): a finished reply offers "Rerun…";
 * choosing it starts a new run from that reply's node, which the page follows like any turn and history
 * then shows. A server of its own whose model is the repo's fake LLM, answering with plain text.
 */
import { expect, test } from './support/fixtures';

test.use({ serverConfig: { llm: { text: 'Draft ready.' } } });

test('a finished reply can be rerun from its node; the new run is followed and lands in history', async ({
  page,
  consoleErrors,
}, testInfo) => {
  const agent = await page.request.post('/studio/api/agents', { data: { name: 'Drafter', max_iterations: 1 } });
  expect(agent.status(), await agent.text()).toBe(201);
  const pack = await page.request.post('/studio/api/workflows', { data: { name: 'Rerun pack', domain: 'pdlc' } });
  const packId = (await pack.json()).id;
  const graph = await page.request.put(`/studio/api/workflows/${packId}/graph`, {
    data: {
      nodes: [{ node_key: 'draft', type: 'agent', agent_id: (await agent.json()).id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'draft' }],
    },
  });
  expect(graph.status(), await graph.text()).toBe(200);
  const bound = await page.request.put('/agent/workflows/again', {
    data: { domain: 'pdlc', stage: 'discover', pack_id: packId },
  });
  expect(bound.status()).toBe(200);

  await page.goto(`/studio/workflows/${packId}/run?project=again`);
  await page.getByTestId('chat-input').fill('Draft the brief');
  await page.getByTestId('chat-send').click();
  const replies = page.locator('[data-testid="chat-message"][data-role="assistant"][data-state="done"]');
  await expect(replies).toHaveCount(1);
  await expect(page.getByTestId('chat-send')).toBeVisible();

  const menu = page.getByTestId('rerun-menu');
  await menu.getByText('Rerun…').click();
  await page.screenshot({ path: testInfo.outputPath('rerun-menu.png') });
  await menu.getByRole('button', { name: 'Rerun from draft', exact: true }).click();

  // the new run is a run of its own, marked as a rerun of the first, and its reply joins history
  await expect(replies).toHaveCount(2);
  const runs = (await (await page.request.get('/agent/runs?project_slug=again')).json()).runs as Array<{
    id: string;
    state: string;
    rerun_of: string | null;
  }>;
  expect(runs).toHaveLength(2);
  const [latest, first] = runs;
  expect(latest).toMatchObject({ state: 'done', rerun_of: first.id });
  expect(consoleErrors).toEqual([]);
});
