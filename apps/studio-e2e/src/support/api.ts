/** Records a test sets up through the API (as its own user) before it drives the pages. */
import { expect, type APIRequestContext } from '@playwright/test';

/** The system PDLC pack's id, as the agent API names it (`pack_id`). */
export async function pdlcPackId(request: APIRequestContext): Promise<number> {
  const packs = await (await request.get('/agent/workflows')).json();
  return packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc').pack_id;
}

/** Makes project `slug` on the PDLC pack at its first stage; returns the pack id. */
export async function pdlcProject(request: APIRequestContext, slug: string): Promise<number> {
  const packId = await pdlcPackId(request);
  const r = await request.put(`/agent/workflows/${slug}`, {
    data: { domain: 'pdlc', stage: 'discover', pack_id: packId },
  });
  expect(r.status(), await r.text()).toBe(200);
  return packId;
}

/** A copy of the system PDLC workflow owned by the caller; returns its id. */
export async function cloneOfPdlc(request: APIRequestContext, name: string): Promise<number> {
  const list = await (await request.get('/studio/api/workflows')).json();
  const pdlc = list.find((w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system);
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const r = await request.post(`/studio/api/workflows/${pdlc.id}/clone`, { data: { name, slug } });
  expect(r.status(), await r.text()).toBe(201);
  return (await r.json()).id;
}
