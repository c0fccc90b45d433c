import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoPipelines, seedPipelinesDemo } from '../../functions/pipelines/demo';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { testClient } from '../support/client';
import { createCompany, createKey, useClients, useWorld } from '../support/world';
import { stagesOf } from './support';

const w = useWorld({ pipelines: true });
const [reads] = useClients(w, ['read:pipelines']);

const keysOf = (list: Array<{ key: string }>) => list.map((item) => item.key);

describe('GET /pipelines', () => {
  it('lists the pipelines in order, each with its stages in order, names in both languages', async () => {
    const res = await reads.GET('/api/v1/pipelines');
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    // The list is never paged: its next_cursor is always null (a key the typed answer leaves out).
    expect(res.data).toHaveProperty('next_cursor', null);
    expect(keysOf(res.data?.results ?? [])).toEqual(demoPipelines.map((p) => p.key));
    const [sales] = res.data?.results ?? [];
    const expected = demoPipelines[0] as (typeof demoPipelines)[number];
    expect(sales).toEqual({
      key: expected.key,
      name: { en: expected.name.en, ar: expected.name.ar },
      purpose: expected.purpose,
      stages: expected.stages.map((s) => ({
        key: s.key,
        name: { en: s.name.en, ar: s.name.ar },
        kind: s.kind,
        probability: s.probability,
      })),
    });
  });

  it('gives the English name where a language has none', async () => {
    const res = await w.adminClient.POST('/admin/v1/companies/{company_id}/pipelines', {
      params: { path: { company_id: w.company.id } },
      body: {
        key: 'english-only',
        name: { en: 'English only' },
        purpose: 'sales',
        stages: [{ key: 'open', name: { en: 'Open' }, kind: 'open', probability: 5 }],
      },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.name).toEqual({ en: 'English only', ar: 'English only' });
    expect(res.data?.stages[0]?.name).toEqual({ en: 'Open', ar: 'Open' });
  });

  it('is read-only: no write of pipelines in the public API, and a key without read:pipelines is refused', async () => {
    // A write the document has no route for, sent as it is.
    const writer = await w.keyWith(['write:pipelines']);
    // raw: a path and method the API does not declare
    expect((await w.request('/pipelines', { key: writer.secret, body: { key: 'x' } })).status).toBe(404);
    const other = await w.clientWith(['read:leases']);
    expect((await other.GET('/api/v1/pipelines')).response.status).toBe(403);
  });

  it('never shows another company’s pipelines', async () => {
    const other = await createCompany(w.api);
    const key = await createKey(w.api, other.id, { scopes: ['read:pipelines'] });
    const res = await testClient(w.api, { host: other.host, serverKey: key.secret }).GET('/api/v1/pipelines');
    expect(res.data?.results).toEqual([]);
  });
});

describe('the demo company', () => {
  it('gets a sales and a leasing pipeline', async () => {
    const company = await createCompany(w.api);
    await w.api.db.transaction().execute((trx) => seedPipelinesDemo(trx, company.id));
    const listed = (
      await w.adminClient.GET('/admin/v1/companies/{company_id}/pipelines', { params: { path: { company_id: company.id } } })
    ).data?.results;
    expect(listed?.map((p) => [p.key, p.purpose])).toEqual([
      ['sales', 'sales'],
      ['leasing', 'leasing'],
    ]);
  });
});

describe('managing pipelines in the admin API', () => {
  it('creates, renames and reorders pipelines', async () => {
    const company = await createCompany(w.api);
    const at = { path: { company_id: company.id } };
    const create = (body: Record<string, unknown>) =>
      w.adminClient.POST('/admin/v1/companies/{company_id}/pipelines', { params: at, body: body as never });
    const listed = async () =>
      keysOf((await w.adminClient.GET('/admin/v1/companies/{company_id}/pipelines', { params: at })).data?.results ?? []);
    const patch = (key: string, body: Record<string, unknown>) =>
      w.adminClient.PATCH('/admin/v1/companies/{company_id}/pipelines/{key}', {
        params: { path: { company_id: company.id, key } },
        body: body as never,
      });
    const stage = { key: 'new', name: { en: 'New' }, kind: 'open', probability: 10 };
    for (const key of ['a', 'b', 'c']) {
      expect((await create({ key, name: { en: key }, purpose: 'sales', stages: [stage] })).response.status).toBe(201);
    }
    const taken = await create({ key: 'a', name: { en: 'a' }, purpose: 'sales', stages: [stage] });
    expect(taken.response.status).toBe(409);
    expect((await create({ key: 'd', name: { en: 'd' }, purpose: 'sales', stages: [stage], position: 0 })).response.status).toBe(
      201,
    );
    expect(await listed()).toEqual(['d', 'a', 'b', 'c']);
    const moved = await patch('d', { position: 9, name: { en: 'Dee', ar: 'دي' } });
    expect(moved.response.status, JSON.stringify(moved.error)).toBe(200);
    expect(moved.data?.name).toEqual({ en: 'Dee', ar: 'دي' });
    expect(await listed()).toEqual(['a', 'b', 'c', 'd']);
    await patch('c', { position: 0 });
    expect(await listed()).toEqual(['c', 'a', 'b', 'd']);
    expect((await patch('nope', { position: 0 })).response.status).toBe(404);
  });

  it('adds, renames, moves and deletes stages', async () => {
    const base = { key: `p-${w.unique()}`, name: { en: 'P' }, purpose: 'leasing', stages: [] as unknown[] };
    base.stages = [
      { key: 'one', name: { en: 'One' }, kind: 'open', probability: 10 },
      { key: 'won', name: { en: 'Won' }, kind: 'won', probability: 100 },
    ];
    const at = { path: { company_id: w.company.id } };
    expect(
      (await w.adminClient.POST('/admin/v1/companies/{company_id}/pipelines', { params: at, body: base as never })).response
        .status,
    ).toBe(201);
    const { put, remove } = stagesOf(w, base.key);
    const added = await put('two', { name: { en: 'Two', ar: 'اثنان' }, kind: 'open', probability: 50, position: 1 });
    expect(added.response.status, JSON.stringify(added.error)).toBe(201);
    expect(keysOf(added.data?.stages ?? [])).toEqual(['one', 'two', 'won']);
    const renamed = await put('one', { name: { en: 'First' }, kind: 'open', probability: 15, position: 2 });
    expect(renamed.response.status).toBe(200);
    expect(renamed.data?.stages.map((s) => [s.key, s.name.en, s.probability])).toEqual([
      ['two', 'Two', 50],
      ['won', 'Won', 100],
      ['one', 'First', 15],
    ]);
    expect((await remove('two')).response.status).toBe(204);
    const listed = await w.adminClient.GET('/admin/v1/companies/{company_id}/pipelines', { params: at });
    expect(keysOf(listed.data?.results.find((p) => p.key === base.key)?.stages ?? [])).toEqual(['won', 'one']);
    expect((await remove('two')).response.status).toBe(404);
    const bad = await put('Bad Key', { name: { en: 'x' }, kind: 'open', probability: 1 });
    expect(bad.response.status).toBe(400);
    expect((await put('x', { name: { en: 'x' }, kind: 'open', probability: 101 })).response.status).toBe(400);
  });
});

describe('the admin CLI', cliTimeout, () => {
  const cli = adminCli(() => w.api);
  // Each command is a child process: under load a few take seconds.
  it('lists pipelines, puts a stage and updates a pipeline', async () => {
    const listed = await cli('pipelines', 'list', w.company.id);
    expect(keysOf(listed.results).slice(0, 2)).toEqual(['sales', 'leasing']);
    const stage = await cli(
      'stages',
      'put',
      w.company.id,
      'sales',
      'reserved',
      '--name-en',
      'Reserved',
      '--name-ar',
      'محجوز',
      '--kind',
      'open',
      '--probability',
      '80',
      '--position',
      '3',
    );
    expect(stage.stages[3]).toEqual({ key: 'reserved', name: { en: 'Reserved', ar: 'محجوز' }, kind: 'open', probability: 80 });
    const renamed = await cli('pipelines', 'update', w.company.id, 'leasing', '--name-en', 'Rentals', '--position', '0');
    expect(renamed.name.en).toBe('Rentals');
    expect(keysOf((await cli('pipelines', 'list', w.company.id)).results).slice(0, 2)).toEqual(['leasing', 'sales']);
    await cli('stages', 'delete', w.company.id, 'sales', 'reserved');
    await cli('pipelines', 'update', w.company.id, 'leasing', '--name-en', 'Leasing', '--name-ar', 'التأجير', '--position', '1');
  }, 90_000);

  it('adds a pipeline from a file', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'pipelines-')), 'lettings.json');
    const lettings = {
      key: 'lettings',
      name: { en: 'Lettings' },
      purpose: 'leasing',
      stages: [{ key: 'new', name: { en: 'New' }, kind: 'open', probability: 5 }],
    };
    await writeFile(file, JSON.stringify(lettings));
    const added = await cli('pipelines', 'add', w.company.id, file);
    expect(added).toEqual({
      ...lettings,
      name: { en: 'Lettings', ar: 'Lettings' },
      stages: [{ ...lettings.stages[0], name: { en: 'New', ar: 'New' } }],
    });
  });
});
