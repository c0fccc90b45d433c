import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { createTestApi, demo, type TestApi } from '../support/harness';
import { type Receiver, startReceiver } from './support';
import { adminOf, createCompany, importCatalogue } from '../support/world';

/**
 * The static-site rebuild hook: changes to published listings are coalesced per company, and the scheduler
 * sends one POST once the first of them is older than REBUILD_HOOK_DELAY_SECONDS (30 s by default; the tests
 * move the scheduler's clock instead of waiting).
 */
let api: TestApi;
let builds: Receiver;

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  builds = await startReceiver(() => ({ status: 200 }));
});
afterAll(async () => {
  await builds.close();
  await api.close();
});

const inSeconds = (s: number) => new Date(Date.now() + s * 1000);
/** The scheduler as it runs at `at`. */
const schedulerAt = (at: Date) => {
  const services = api.platform.services();
  return runScheduledWork({ ...services, webhooks: { ...services.webhooks, now: () => at } });
};
const buildsFor = (companyId: string) => builds.requests.filter((r) => JSON.parse(r.body).company_id === companyId);
const draft = demo.listings.find((l) => l.status === 'draft')!;
const published = demo.listings.filter((l) => l.status === 'published');

async function companyWithHook(path: string) {
  const company = await createCompany(api, {
    environment: 'development',
    settings: { rebuild_hook_url: `${builds.url}${path}` },
  });
  return company;
}

describe('the static-site rebuild hook', () => {
  it('sends one build for a bulk import, publishing and withdrawing together, after the delay', async () => {
    const company = await companyWithHook('/build/a');
    await importCatalogue(api, company.id);
    const admin = (slug: string, action: 'publish' | 'withdraw') =>
      adminOf(api).POST(`/admin/v1/companies/{company_id}/listings/{slug}/${action}`, {
        params: { path: { company_id: company.id, slug } },
      });
    expect((await admin(draft.slug.en, 'publish')).response.status).toBe(200);
    expect((await admin(published[0]!.slug.en, 'withdraw')).response.status).toBe(200);
    const jobs = await api.db.selectFrom('rebuild_jobs').selectAll().where('company_id', '=', company.id).execute();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.request_count).toBeGreaterThanOrEqual(3);
    await schedulerAt(inSeconds(5));
    expect(buildsFor(company.id)).toHaveLength(0);
    await schedulerAt(inSeconds(31));
    const sent = buildsFor(company.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/build/a' });
    expect(sent[0]!.headers['user-agent']).toMatch(/^PropertyAPI-Webhooks\//);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ type: 'rebuild', company_id: company.id });
    await schedulerAt(inSeconds(120));
    expect(buildsFor(company.id)).toHaveLength(1);
  });

  it('triggers for a change to a published listing, not for drafts or a company without a hook', async () => {
    const company = await companyWithHook('/build/b');
    const plain = await createCompany(api, { environment: 'development' });
    await importCatalogue(api, plain.id);
    await importCatalogue(api, company.id, { areas: demo.areas, listings: [draft] });
    await importCatalogue(api, company.id, { areas: demo.areas, listings: [{ ...draft, title: { en: 'Still a draft' } }] });
    await schedulerAt(inSeconds(60));
    expect(buildsFor(company.id)).toHaveLength(0);
    expect(buildsFor(plain.id)).toHaveLength(0);
    const [listing] = published;
    await importCatalogue(api, company.id, { areas: demo.areas, listings: [listing] });
    await schedulerAt(inSeconds(60));
    expect(buildsFor(company.id)).toHaveLength(1);
    // Editing the published listing later asks for another build.
    await importCatalogue(api, company.id, { areas: demo.areas, listings: [{ ...listing, title: { en: 'New title' } }] });
    await schedulerAt(inSeconds(60));
    expect(buildsFor(company.id)).toHaveLength(2);
  });

  it('builds once more for a change made while the build POST was in flight', async () => {
    const company = await companyWithHook('/build/c');
    await importCatalogue(api, company.id, { areas: demo.areas, listings: published.slice(0, 2) });
    builds.respond(async (request) => {
      if (JSON.parse(request.body).company_id === company.id && buildsFor(company.id).length === 1) {
        await adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/withdraw', {
          params: { path: { company_id: company.id, slug: published[0]!.slug.en } },
        });
      }
      return { status: 200 };
    });
    await schedulerAt(inSeconds(31));
    builds.respond(() => ({ status: 200 }));
    expect(buildsFor(company.id)).toHaveLength(1);
    // The second build waits the delay again, counted from that change.
    await schedulerAt(inSeconds(20));
    expect(buildsFor(company.id)).toHaveLength(1);
    await schedulerAt(inSeconds(70));
    expect(buildsFor(company.id)).toHaveLength(2);
  });

  it('retries a failed build POST later', async () => {
    const failing = await startReceiver((_, i) => ({ status: i === 0 ? 503 : 204 }));
    const company = await createCompany(api, { environment: 'development', settings: { rebuild_hook_url: failing.url } });
    await importCatalogue(api, company.id, { areas: demo.areas, listings: published.slice(0, 1) });
    await schedulerAt(inSeconds(31));
    const [job] = await api.db.selectFrom('rebuild_jobs').selectAll().where('company_id', '=', company.id).execute();
    expect(job).toMatchObject({ attempt_count: 1, last_error: 'HTTP 503' });
    await schedulerAt(inSeconds(60));
    expect(failing.requests).toHaveLength(1);
    await schedulerAt(inSeconds(95));
    expect(failing.requests).toHaveLength(2);
    expect(
      await api.db.selectFrom('rebuild_jobs').select('company_id').where('company_id', '=', company.id).execute(),
    ).toHaveLength(0);
    await failing.close();
  });
});
