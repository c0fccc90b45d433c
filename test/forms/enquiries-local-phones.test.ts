import { describe, expect, it } from 'vitest';
import { answer } from '../stay/support';
import { testClient } from '../support/client';
import { createCompany, createKey, demoCompany, useApi } from '../support/world';

const api = useApi();

/** POST /leads through the typed client with a server key of the company on `host`. */
const postLead = (host: string, serverKey: string, body: Record<string, unknown>) =>
  answer(testClient(api, { host, serverKey }).POST('/api/v1/leads', { body: body as never }));
const base = () => ({ consent: true, consent_version: '2026-01', email: `phone.${Date.now().toString(36)}@example.com` });

describe("a phone in local form, read in the country of the company's time zone", () => {
  it('takes 050 123 4567 for a Dubai company without phone_country, and refuses it where the zone has no country', async () => {
    const dubai = await demoCompany(api);
    const key = (await createKey(api, dubai.id, { scopes: ['write:leads'] })).secret;
    const body = { ...base(), phone: '050 123 4567' };
    const res = await postLead(dubai.host, key, body);
    expect(res.status, res.text).toBe(201);
    const person = await api.db
      .selectFrom('contacts')
      .select('phone')
      .where('company_id', '=', dubai.id)
      .where('reference', '=', res.json.person)
      .executeTakeFirstOrThrow();
    expect(person.phone).toBe('+971501234567');
    const utc = await createCompany(api, { time_zone: 'UTC' });
    const utcKey = (await createKey(api, utc.id, { scopes: ['write:leads'] })).secret;
    const refused = await postLead(utc.host, utcKey, { ...base(), phone: '050 123 4567' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.json.errors).toEqual([expect.objectContaining({ path: 'phone', code: 'invalid_phone' })]);
  });
});
