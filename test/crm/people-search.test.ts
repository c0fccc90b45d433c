import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type World, world } from '../support/world';

/**
 * Staff's search of people (issue 36): `q` on /contacts, /leads and /deals with a server key. Names in either script
 * and their common spellings, the Latin and Arabic articles, phones as written (E.164, last digits), emails in any
 * case; an erased person is never found; a search moves no one's `updated_at` or version.
 */

let w: World;
const people: Record<string, string> = {};

beforeAll(async () => {
  w = await world();
  const add = async (name: string, body: { name?: string; email?: string; phone?: string }) => {
    people[name] = await w.contact(body);
  };
  await add('A', { name: 'Mohammed Al Hashimi', email: 'M.AlHashimi@Example.com', phone: '+971 50 123 4567' });
  await add('B', { name: 'مُحَمَّد الهاشمي', phone: '+971501119999' });
  await add('C', { name: 'Muhammad Khan', email: 'mkhan@example.com' });
  await add('D', { name: 'Mohamed El-Sayed', email: 'elsayed@example.com' });
  await add('E', { name: 'Fatima AlZaabi', email: 'fatima@example.com' });
  await add('F', { name: 'Layla Haddad', email: 'layla.haddad@example.com', phone: '+971557654321' });
  await add('G', { name: 'Ahmed Ali', email: 'ahmed.ali@example.com' });
});
afterAll(() => w.close());

const ours = (references: string[]) =>
  Object.entries(people)
    .filter(([, reference]) => references.includes(reference))
    .map(([name]) => name)
    .sort();

async function contacts(q: string): Promise<string[]> {
  const { data, error } = await w.client.GET('/api/v1/contacts', { params: { query: { q, page_size: 100 } as never } });
  expect(error, q).toBeUndefined();
  return ours((data?.results ?? []).map((c) => c.reference));
}

describe('GET /contacts?q=', () => {
  it.each([
    ['Mohammed', ['A', 'B', 'C', 'D']],
    ['محمد', ['A', 'B', 'C', 'D']],
    ['muhammad', ['A', 'B', 'C', 'D']],
    ['MOHAMAD', ['A', 'B', 'C', 'D']],
    // The start of a name, and one letter away from five letters (moham: muham…).
    ['moham', ['A', 'C', 'D']],
    ['Mohammed Al Hashimi', ['A']],
    ['Muhammad Al-Hashimi', ['A']],
    ['El Hashimi', ['A']],
    ['hashimi', ['A']],
    ['Hashmi', ['A']],
    ['الهاشمي', ['B']],
    ['هاشمي', ['B']],
    ['zaabi', ['E']],
    ['Al Zaabi', ['E']],
    ['sayed', ['D']],
    ['Ahmad', ['G']],
    ['ali', ['G']],
    ['nobody', []],
  ])('finds %s', async (q, expected) => {
    expect(await contacts(q)).toEqual(expected);
  });

  it.each([
    ['+971501234567', ['A']],
    ['+971 50 123 4567', ['A']],
    ['0501234567', ['A']],
    ['050-123-4567', ['A']],
    ['00971501234567', ['A']],
    ['٠٥٠١٢٣٤٥٦٧', ['A']],
    ['4567', ['A']],
    ['9999', ['B']],
    ['1234 5678', []],
  ])('finds the phone %s', async (q, expected) => {
    expect(await contacts(q)).toEqual(expected);
  });

  it.each([
    ['m.alhashimi@example.com', ['A']],
    ['M.ALHASHIMI@EXAMPLE.COM', ['A']],
    [' mkhan@Example.com ', ['C']],
    ['nobody@example.com', []],
  ])('finds the email %s', async (q, expected) => {
    expect(await contacts(q)).toEqual(expected);
  });

  it('moves no one’s updated_at or version: the person’s answer did not change', async () => {
    const reference = await w.contact({ name: 'Omar Farouk', email: 'omar.farouk@example.com' });
    const read = () => w.client.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } });
    const before = await read();
    expect(await contacts('Umar')).toEqual([]); // not one of `people`
    const found = await w.client.GET('/api/v1/contacts', { params: { query: { q: 'Umar' } as never } });
    expect(found.data?.results.map((c) => c.reference)).toContain(reference);
    const after = await read();
    expect(after.data?.updated_at).toBe(before.data?.updated_at);
    expect(after.response.headers.get('etag')).toBe(before.response.headers.get('etag'));
  });

  it('finds a person by a new name once renamed, not by the old one', async () => {
    const reference = await w.contact({ name: 'Khalid Mansour', email: 'khalid.mansour@example.com' });
    const has = async (q: string) => {
      const { data } = await w.client.GET('/api/v1/contacts', { params: { query: { q } as never } });
      return (data?.results ?? []).some((c) => c.reference === reference);
    };
    expect(await has('Khaled Mansour')).toBe(true);
    const patched = await w.client.PATCH('/api/v1/contacts/{reference}', {
      params: { path: { reference } },
      body: { name: 'Khalid Nasser' },
    });
    expect(patched.response.status).toBe(200);
    expect(await has('Mansour')).toBe(false);
    expect(await has('nasser')).toBe(true);
  });

  it('refuses a q over 200 characters at the field', async () => {
    const { response, error } = await w.client.GET('/api/v1/contacts', { params: { query: { q: 'a'.repeat(201) } as never } });
    expect(response.status).toBe(400);
    expect((error as { errors: Array<{ path: string }> }).errors[0]?.path).toBe('q');
  });
});

describe('GET /leads?q= and /deals?q=: by their person', () => {
  it('finds a lead and a deal by their person’s name, phone and email', async () => {
    const lead = await w.lead({ name: 'Mohammed Al Hashimi', email: 'm.alhashimi@example.com' });
    expect(lead.person).toBe(people.A);
    const deal = await w.deal({ person: people.A as string });
    for (const q of ['محمد', 'muhammad hashimi', '4567', 'M.AlHashimi@example.com']) {
      const leads = await w.client.GET('/api/v1/leads', { params: { query: { q, page_size: 100 } as never } });
      expect(leads.response.status, q).toBe(200);
      expect(
        leads.data?.results.map((l) => l.reference),
        q,
      ).toContain(lead.reference);
      const deals = await w.client.GET('/api/v1/deals', { params: { query: { q, page_size: 100 } as never } });
      expect(deals.response.status, q).toBe(200);
      expect(
        deals.data?.results.map((d) => d.reference),
        q,
      ).toContain(deal.reference);
    }
    const none = await w.client.GET('/api/v1/leads', { params: { query: { q: 'Layla' } as never } });
    expect(none.data?.results.map((l) => l.reference)).not.toContain(lead.reference);
  });
});

describe('erased people are never found', () => {
  it('finds no erased person, nor their leads, by name, phone or email', async () => {
    const lead = await w.lead({ name: 'Layla Haddad', email: 'layla.haddad@example.com' });
    expect(await contacts('Layla')).toEqual(['F']);
    const erased = await w.adminClient.POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
      params: { path: { company_id: w.company.id, reference: people.F as string } },
    });
    expect(erased.response.status).toBe(200);
    for (const q of ['Layla', 'Haddad', 'ليلى', '+971557654321', '4321', 'layla.haddad@example.com']) {
      expect(await contacts(q), q).toEqual([]);
      const leads = await w.client.GET('/api/v1/leads', { params: { query: { q } as never } });
      expect(
        leads.data?.results.map((l) => l.reference),
        q,
      ).not.toContain(lead.reference);
    }
  });
});
