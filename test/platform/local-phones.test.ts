import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPipelines } from '../../functions/pipelines/demo';
import { book, type Ctx, day, newHome, setup } from '../stay/support';
import { testClient } from '../support/client';
import { adminOf, createKey } from '../support/world';

/**
 * A phone in local form (`050 123 4567` for a Dubai company) wherever the API takes a person's phone. Enquiries and
 * POST /contacts have their own tests (test/forms/enquiries-local-phones.test.ts, test/crm/contacts.test.ts); here the booking
 * request and a new deal's person, and the document: every request body's `phone` says what it takes.
 */
let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.api.close());

const phoneOf = async (reference: string) =>
  (
    await ctx.api.db
      .selectFrom('contacts')
      .select('phone')
      .where('company_id', '=', ctx.company.id)
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow()
  ).phone;

describe('a phone in local form', () => {
  it('is read in the company’s country on a booking request', async () => {
    const home = await newHome(ctx);
    const booked = await book(ctx, home, day(30), day(33), { email: undefined, phone: '050 765 4301' });
    const booking = await adminOf(ctx.api).GET('/admin/v1/companies/{company_id}/bookings/{reference}', {
      params: { path: { company_id: ctx.company.id, reference: booked.reference } },
    });
    expect(await phoneOf(booking.data?.person as string)).toBe('+971507654301');
  });

  it('is read in the company’s country for a new deal’s person', async () => {
    const key = (await createKey(ctx.api, ctx.company.id, { scopes: ['write:pipelines', 'read:pipelines'] })).secret;
    for (const pipeline of demoPipelines) {
      const added = await adminOf(ctx.api).POST('/admin/v1/companies/{company_id}/pipelines', {
        params: { path: { company_id: ctx.company.id } },
        body: pipeline as never,
      });
      expect(added.response.status).toBe(201);
    }
    const res = await testClient(ctx.api, { host: ctx.company.host, serverKey: key }).POST('/api/v1/deals', {
      body: { title: 'Local phone', person: { name: 'Deal Person', phone: '04 555 0199' } },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(await phoneOf(res.data?.person as string)).toBe('+97145550199');
  });

  it('is described the same on every request body that takes a phone (not "any format")', async () => {
    // raw: the OpenAPI document itself is not an operation it declares
    const doc = (await ctx.api.request('/api/v1/openapi.json')).json;
    const described: string[] = [];
    let seen = new Set<unknown>();
    const resolve = (node: any): any => (node?.$ref ? doc.components.schemas[node.$ref.split('/').pop()] : node);
    const walk = (node: any, where: string) => {
      node = resolve(node);
      if (!node || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (node.properties?.phone) described.push(`${where}: ${resolve(node.properties.phone).description}`);
      for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') walk(value, where);
    };
    // A contractor's phone is a business line kept as written (never matched to a person): not a person's phone.
    const people = Object.entries<any>(doc.paths).filter(([path]) => !path.startsWith('/api/v1/contractors'));
    for (const [path, item] of people) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const body = operation.requestBody?.content?.['application/json']?.schema;
        seen = new Set();
        if (body) walk(body, `${method.toUpperCase()} ${path}`);
      }
    }
    const where = described.map((line) => line.split(':')[0]);
    expect(where).toEqual(
      expect.arrayContaining(['POST /api/v1/leads', 'POST /api/v1/bookings', 'POST /api/v1/contacts', 'POST /api/v1/deals']),
    );
    for (const line of described) expect(line).toMatch(/as dialled in the company's country \(`050 123 4567`/);
  });
});
