/**
 * /agent/workflows: the public pack list (system only when anonymous, system + own when logged in)
 * and a project's workflow state (GET/PUT /agent/workflows/{slug}), for two users.
 * A system pack is inserted directly, so nothing here depends on the seeded `pdlc` pack.
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import type { AuthUser } from '../src/modules/auth/user.entity';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

interface PackItem {
  id: string;
  pack_id: number;
  slug: string;
  name: string;
  domain: string;
  stages: string[];
  is_system: boolean;
}

const STAGES = ['scope', 'build', 'verify'];

describe('/agent/workflows', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client;
  let b: Client;
  let anon: Client;
  let sysId: number;
  let mine: { id: number; slug: string };
  let bobs: { id: number; slug: string };

  const fieldsOf = (r: Res) => [...new Set((r.body?.errors ?? []).map((e: { field: string }) => e.field))];
  const slugs = (r: Res) => (r.body.workflows as PackItem[]).map((w) => w.slug);
  const me = async (c: Client): Promise<AuthUser> => ({ ...(await c.get('/auth/me')).body, is_admin: false });

  beforeAll(async () => {
    t = await startApp();
    ds = t.created.app.get(DataSource);
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
    anon = new Client(t.url);
    const [row] = await ds.query(
      `INSERT INTO workflows (owner_id, is_system, name, slug, domain, stages) VALUES (NULL, true, 'Agent test pack', 'agent-test-pack', 'agent-test', ARRAY['scope','build','verify']) RETURNING id`,
    );
    sysId = Number(row.id);
    const m = await a.post('/studio/api/workflows', {
      name: 'Mine',
      slug: 'mine',
      domain: 'agent-test',
      stages: ['draft', 'final'],
    });
    assert.equal(m.status, 201, m.text);
    mine = m.body;
    const o = await b.post('/studio/api/workflows', {
      name: 'Bobs',
      slug: 'bobs',
      domain: 'agent-test',
      stages: ['one'],
    });
    assert.equal(o.status, 201, o.text);
    bobs = o.body;
  });
  afterAll(() => t.close());

  describe('GET /agent/workflows', () => {
    test('anonymous: system packs only, each item in the documented shape', async () => {
      const r = await anon.get('/agent/workflows');
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), ['domains', 'packs', 'workflows']);
      assert.ok(r.body.workflows.every((w: PackItem) => w.is_system));
      assert.ok(!slugs(r).includes('mine') && !slugs(r).includes('bobs'));
      const item = r.body.workflows.find((w: PackItem) => w.pack_id === sysId);
      assert.deepEqual(item, {
        id: 'agent-test-pack',
        pack_id: sysId,
        slug: 'agent-test-pack',
        name: 'Agent test pack',
        domain: 'agent-test',
        stages: STAGES,
        is_system: true,
      });
    });

    test("logged in: system + own, never another user's", async () => {
      const ra = await a.get('/agent/workflows');
      assert.ok(slugs(ra).includes('agent-test-pack'));
      assert.ok(slugs(ra).includes('mine'));
      assert.ok(!slugs(ra).includes('bobs'));
      const own = ra.body.workflows.find((w: PackItem) => w.slug === 'mine');
      assert.deepEqual(own, {
        id: 'mine',
        pack_id: mine.id,
        slug: 'mine',
        name: 'Mine',
        domain: 'agent-test',
        stages: ['draft', 'final'],
        is_system: false,
      });
      const rb = await b.get('/agent/workflows');
      assert.ok(slugs(rb).includes('bobs') && slugs(rb).includes('agent-test-pack'));
      assert.ok(!slugs(rb).includes('mine'));
      const systemOnly = (await anon.get('/agent/workflows')).body.workflows;
      assert.deepEqual(
        ra.body.workflows.filter((w: PackItem) => w.is_system),
        systemOnly,
        'the same system packs for everyone',
      );
    });

    test('the three lists are equal', async () => {
      for (const c of [anon, a, b]) {
        const r = await c.get('/agent/workflows');
        assert.deepEqual(r.body.packs, r.body.workflows);
        assert.deepEqual(r.body.domains, r.body.workflows);
      }
    });
  });

  describe('GET/PUT /agent/workflows/{slug}', () => {
    test('PUT binds pack and stage, creating the project (name = slug); GET returns the same state', async () => {
      const r = await a.put('/agent/workflows/beta', { domain: 'agent-test', stage: 'build', pack_id: sysId });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        project_slug: 'beta',
        domain: 'agent-test',
        stage: 'build',
        pack_id: sysId,
        stages: STAGES,
        awaiting_gate: null,
        running_run_id: null,
        awaiting_approval: null,
      });
      const g = await a.get('/agent/workflows/beta');
      assert.equal(g.status, 200);
      assert.deepEqual(g.body, r.body);
      const project = (await a.get('/studio/api/projects/beta')).body;
      assert.equal(project.name, 'beta');
      assert.equal(project.stage, 'build');
    });

    test('PUT rebinds an existing project: another stage, another (own) pack', async () => {
      await a.post('/studio/api/projects', { slug: 'existing', name: 'Existing project' });
      assert.deepEqual((await a.get('/agent/workflows/existing')).body, {
        project_slug: 'existing',
        domain: null,
        stage: null,
        pack_id: null,
        stages: [],
        awaiting_gate: null,
        running_run_id: null,
        awaiting_approval: null,
      });
      const s1 = await a.put('/agent/workflows/existing', { domain: 'agent-test', stage: 'verify', pack_id: sysId });
      assert.equal(s1.body.stage, 'verify');
      const s2 = await a.put('/agent/workflows/existing', { domain: 'agent-test', stage: 'final', pack_id: mine.id });
      assert.deepEqual(s2.body, {
        project_slug: 'existing',
        domain: 'agent-test',
        stage: 'final',
        pack_id: mine.id,
        stages: ['draft', 'final'],
        awaiting_gate: null,
        running_run_id: null,
        awaiting_approval: null,
      });
      assert.equal(
        (await a.get('/studio/api/projects/existing')).body.name,
        'Existing project',
        'binding keeps the name',
      );
    });

    test('rebinding clears awaiting_gate (even to the same stage)', async () => {
      const projects = t.created.app.get(ProjectsService);
      const p = await projects.findOwned(await me(a), 'beta');
      const gate = { node_key: 'gate-build', stage: 'build', next_stage: 'verify' };
      await projects.saveState(p.id, { stage: 'build', awaiting_gate: gate });
      assert.deepEqual((await a.get('/agent/workflows/beta')).body.awaiting_gate, gate);
      const r = await a.put('/agent/workflows/beta', { domain: 'agent-test', stage: 'build', pack_id: sysId });
      assert.equal(r.body.awaiting_gate, null);
      assert.equal((await a.get('/agent/workflows/beta')).body.awaiting_gate, null);
    });

    test('validation: bad domain, stage or pack is 400 naming the field, and nothing is created', async () => {
      const bad = async (body: unknown, field: string, slug = 'fresh') => {
        const r = await a.put(`/agent/workflows/${slug}`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.headers.get('content-type')?.split(';')[0], 'application/problem+json');
        assert.deepEqual(fieldsOf(r), [field], `${JSON.stringify(body)} → ${r.text}`);
      };
      await bad({ domain: 'pdlc', stage: 'build', pack_id: sysId }, 'domain');
      await bad({ domain: 'agent-test', stage: 'draft', pack_id: sysId }, 'stage', 'beta');
      await bad({ domain: 'agent-test', stage: 'nope', pack_id: sysId }, 'stage');
      await bad({ domain: 'agent-test', stage: 'build', pack_id: 999999 }, 'pack_id');
      await bad({ domain: 'agent-test', stage: 'one', pack_id: bobs.id }, 'pack_id');
      await bad({ domain: 'agent-test', stage: 'build', pack_id: '1' }, 'pack_id');
      await bad({ domain: 'agent-test', stage: 'build', pack_id: 2 ** 40 }, 'pack_id');
      await bad({ domain: 'agent-test', stage: 'build' }, 'pack_id');
      await bad({ stage: 'build', pack_id: sysId }, 'domain');
      await bad({ domain: 'agent-test', pack_id: sysId }, 'stage');
      await bad({ domain: 'agent-test', stage: 'build', pack_id: sysId, name: 'x' }, 'name');
      await bad({ domain: 'agent-test', stage: 'build', pack_id: sysId, awaiting_gate: null }, 'awaiting_gate');
      await bad({ domain: 'agent-test', stage: 'build', pack_id: sysId }, 'slug', 'Bad_Slug');
      assert.equal((await a.get('/agent/workflows/fresh')).status, 404);
      assert.equal((await a.get('/studio/api/projects/fresh')).status, 404);
      assert.equal((await a.get('/agent/workflows/beta')).body.stage, 'build', 'a refused rebind changes nothing');
    });

    test("another user's pack is 400; another user's project is 404 and a PUT with its slug makes the caller's own", async () => {
      assert.equal((await b.get('/agent/workflows/beta')).status, 404);
      const own = await b.put('/agent/workflows/beta', { domain: 'agent-test', stage: 'one', pack_id: bobs.id });
      assert.equal(own.status, 200);
      assert.equal(own.body.pack_id, bobs.id);
      assert.equal((await a.get('/agent/workflows/beta')).body.pack_id, sysId, "A's project is untouched");
      const r = await b.put('/agent/workflows/other', { domain: 'agent-test', stage: 'draft', pack_id: mine.id });
      assert.equal(r.status, 400);
      assert.deepEqual(fieldsOf(r), ['pack_id']);
    });

    test('unknown project is 404; anonymous GET and PUT are 401', async () => {
      assert.equal((await a.get('/agent/workflows/unknown-project')).status, 404);
      assert.equal((await a.get('/agent/workflows/Not_A_Slug')).status, 404);
      assert.equal((await anon.get('/agent/workflows/beta')).status, 401);
      assert.equal(
        (await anon.put('/agent/workflows/beta', { domain: 'agent-test', stage: 'build', pack_id: sysId })).status,
        401,
      );
      assert.equal(
        (await anon.put('/agent/workflows/anon-new', { domain: 'agent-test', stage: 'build', pack_id: sysId })).status,
        401,
      );
      assert.equal(Number((await ds.query(`SELECT count(*)::int AS n FROM projects WHERE slug = 'anon-new'`))[0].n), 0);
    });
  });

  describe('ProjectsService for the chat module', () => {
    let projects: ProjectsService;
    let alice: AuthUser;
    beforeAll(async () => {
      projects = t.created.app.get(ProjectsService);
      alice = await me(a);
    });

    test('ensureProject without a binding creates an unbound project once (also under concurrency)', async () => {
      const all = await Promise.all([1, 2, 3].map(() => projects.ensureProject(alice, 'chat-new')));
      assert.equal(new Set(all.map((p) => p.id)).size, 1);
      assert.equal(all[0].pack_id, null);
      assert.equal(all[0].name, 'chat-new');
      await assert.rejects(
        projects.ensureProject(alice, 'chat-new', { stage: 'build' }),
        (e: { errors: Array<{ field: string }> }) => e.errors[0].field === 'pack_id',
      );
      await assert.rejects(
        projects.ensureProject(alice, 'Bad Slug'),
        (e: { status: number; errors: Array<{ field: string }> }) =>
          e.status === 400 && e.errors[0].field === 'project_slug',
      );
    });

    test('a pack alone binds at its first stage; the current stage is kept while the pack stays', async () => {
      const p = await projects.ensureProject(alice, 'chat-pack', { pack_id: sysId });
      assert.equal(p.stage, 'scope');
      assert.equal(p.domain, 'agent-test');
      await projects.saveState(p.id, {
        stage: 'verify',
        awaiting_gate: { node_key: 'g', stage: 'verify', next_stage: null },
      });
      const same = await projects.ensureProject(alice, 'chat-pack', { pack_id: sysId, domain: 'agent-test' });
      assert.equal(same.stage, 'verify');
      assert.deepEqual(
        same.awaiting_gate,
        { node_key: 'g', stage: 'verify', next_stage: null },
        'an unchanged binding keeps the gate',
      );
      const moved = await projects.ensureProject(alice, 'chat-pack', { stage: 'build' });
      assert.equal(moved.stage, 'build');
      assert.equal(moved.awaiting_gate, null, 'a changed binding clears the gate');
      const other = await projects.ensureProject(alice, 'chat-pack', { pack_id: mine.id });
      assert.equal(other.stage, 'draft', 'another pack starts at its first stage');
    });

    test('a domain alone picks the visible pack of that domain, system packs first', async () => {
      const p = await projects.ensureProject(alice, 'chat-domain', { domain: 'agent-test' });
      assert.equal(p.pack_id, sysId);
      await assert.rejects(
        projects.ensureProject(alice, 'chat-domain2', { domain: 'no-such-domain' }),
        (e: { errors: Array<{ field: string }> }) => e.errors[0].field === 'domain',
      );
      const bob = await me(b);
      const bp = await projects.ensureProject(bob, 'chat-domain', { domain: 'agent-test', stage: 'scope' });
      assert.equal(bp.pack_id, sysId);
      assert.notEqual(bp.id, p.id, "each user's slug is their own project");
    });

    test("stateOf reports the bound pack's stages", async () => {
      const p = await projects.findOwned(alice, 'chat-domain');
      assert.deepEqual(await projects.stateOf(p), {
        project_slug: 'chat-domain',
        domain: 'agent-test',
        stage: 'scope',
        pack_id: sysId,
        stages: STAGES,
        awaiting_gate: null,
        running_run_id: null,
        awaiting_approval: null,
      });
      await assert.rejects(projects.findOwned(await me(b), 'chat-pack'), (e: { status: number }) => e.status === 404);
    });
  });
});
