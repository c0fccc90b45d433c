import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany } from '../support/world';

/**
 * Issue 38, "Recovery" from the command line: `webhooks recover <company> <subscription> --since T` sends again every
 * failed delivery made since T, once (a second run sends none); `webhooks deliveries … --status --since --before`
 * narrows the log by status and by when the deliveries were made, as the admin API does.
 */
let api: TestApi;

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
});
afterAll(async () => {
  await api.close();
});

const hour = 60 * 60 * 1000;
const outageStart = new Date('2026-11-20T09:30:00Z');
const at = (offset: number) => new Date(outageStart.getTime() + offset).toISOString();

/** Deliveries of new events of the company to the subscription, each with its status and when it was made. */
async function deliveries(companyId: string, subscriptionId: string, made: Array<{ status: string; created: string }>) {
  for (const [i, d] of made.entries()) {
    const event = `evt_${subscriptionId.replaceAll('-', '').slice(0, 20)}${String(i).padStart(4, '0')}`;
    await sql`
      with event as (
        insert into events (id, company_id, type, caused_by, data, created_at)
        values (${event}, ${companyId}, 'ping', 'test', '{}'::jsonb, ${d.created}) returning id
      )
      insert into webhook_deliveries (company_id, event_id, subscription_id, status, attempt_count, created_at, completed_at)
      select ${companyId}, id, ${subscriptionId}, ${d.status}, 10, ${d.created}, ${d.created} from event`.execute(api.db);
  }
}

describe('webhooks recover and the deliveries filters, from the command line', () => {
  const cli = adminCli(() => api);

  it('lists by status and time, recovers every failed delivery since a time once', cliTimeout, async () => {
    const company = await createCompany(api, { environment: 'development' });
    const made = await api.admin(`/companies/${company.id}/webhook-subscriptions`, {
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(made.status, made.text).toBe(201);
    const subscription = made.json.id as string;
    const before = [at(-2 * hour), at(-hour)];
    const during = [at(hour), at(2 * hour), at(3 * hour)];
    await deliveries(company.id, subscription, [
      ...before.map((created) => ({ status: 'failed', created })),
      ...during.map((created) => ({ status: 'failed', created })),
      { status: 'succeeded', created: at(4 * hour) },
    ]);
    const createdOf = (page: { results: Array<{ created_at: string }> }) => page.results.map((d) => d.created_at).sort();

    // The admin API's filters, then the same from the command line.
    const path = `/companies/${company.id}/webhook-subscriptions/${subscription}/deliveries`;
    const failedSince = await api.admin(`${path}?status=failed&created_since=${outageStart.toISOString()}`);
    expect(createdOf(failedSince.json)).toEqual(during);
    const failedBefore = await api.admin(`${path}?status=failed&created_before=${outageStart.toISOString()}`);
    expect(createdOf(failedBefore.json)).toEqual(before);
    const succeeded = await api.admin(`${path}?status=succeeded`);
    expect(createdOf(succeeded.json)).toEqual([at(4 * hour)]);

    const listed = await cli('webhooks', 'deliveries', company.id, subscription, '--status', 'failed', '--since', at(0));
    expect(createdOf(listed)).toEqual(during);
    const window = await cli(
      'webhooks',
      'deliveries',
      company.id,
      subscription,
      '--since',
      at(2 * hour),
      '--before',
      at(4 * hour),
    );
    expect(createdOf(window)).toEqual([at(2 * hour), at(3 * hour)]);

    expect(await cli('webhooks', 'recover', company.id, subscription, '--since', at(0))).toEqual({
      recovered: during.length,
      more: false,
    });
    // Nothing is sent twice: a second run finds none left.
    expect(await cli('webhooks', 'recover', company.id, subscription, '--since', at(0))).toEqual({ recovered: 0, more: false });
    const { rows } = await sql<{ created_at: Date; recovered: boolean }>`
      select created_at, recovered_at is not null as recovered from webhook_deliveries
      where subscription_id = ${subscription} and status = 'failed' order by created_at`.execute(api.db);
    expect(rows.map((r) => r.recovered)).toEqual([false, false, true, true, true]);
    // A new pending delivery for each one sent again.
    const pending = await api.admin(`${path}?status=pending`);
    expect(pending.json.results).toHaveLength(during.length);
  });

  it('without --since the API refuses it at the field and nothing is sent', cliTimeout, async () => {
    const company = await createCompany(api, { environment: 'development' });
    const made = await api.admin(`/companies/${company.id}/webhook-subscriptions`, {
      body: { url: 'https://hooks.example.com/in' },
    });
    const subscription = made.json.id as string;
    await deliveries(company.id, subscription, [{ status: 'failed', created: at(hour) }]);
    // The answer itself, from the API the command calls.
    const refused = await api.admin(`/companies/${company.id}/webhook-subscriptions/${subscription}/recover`, { body: {} });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].path).toBe('since');
    await expect(cli('webhooks', 'recover', company.id, subscription)).rejects.toThrow();
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from webhook_deliveries where subscription_id = ${subscription} and recovered_at is not null`.execute(
      api.db,
    );
    expect(rows[0]?.n).toBe(0);
  });
});
