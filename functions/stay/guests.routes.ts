import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { ArrivalSchema, ArrivalsQuery, DetExportQuery, GuestRegistrationSchema } from '../../schema/stay/guests';
import { detCsv } from './guests.present';
import { arrivals, arrivingRegistrations, eraseRegistration, readRegistration } from './guests';

/**
 * Staff's side of guest registration (issue 37; docs/api-reference.md, "Guest registration"), in the admin API: a
 * booking's registered guests (audited), the day's arrivals and which are not registered (the day before arrival:
 * `registration=not_complete` for tomorrow), the DET portal's CSV of a day's arrivals (audited), and the erasure of a
 * cancelled booking's registration.
 */
const bookingParams = companyParam.extend({ reference: z.string().min(1).max(40) });

const getRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/bookings/{reference}/guests',
  summary: 'A booking’s registered guests (personal data: each read is audited)',
  request: { params: bookingParams },
  responses: { 200: json(GuestRegistrationSchema) },
});
const eraseRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/bookings/{reference}/guests',
  summary: 'Erase a cancelled booking’s guest registration before its five years (409 for a booking that holds its stay)',
  request: { params: bookingParams },
  responses: {
    200: json(z.object({ reference: z.string(), erased: z.boolean() })),
    409: json(z.object({}), 'The booking is not cancelled: its registration is kept five years after check-out'),
  },
});
const arrivalsRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/arrivals',
  summary: 'The bookings arriving on a day and whether their guests are registered (no guest data)',
  request: { params: companyParam, query: ArrivalsQuery },
  responses: { 200: json(z.object({ results: z.array(ArrivalSchema), next_cursor: z.null() })) },
});
const detRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/arrivals/det.csv',
  operationId: 'getCompanyArrivalsDetCsv',
  summary: 'The registered guests arriving on a day, as a CSV for the DET portal (personal data: audited)',
  request: { params: companyParam, query: DetExportQuery },
  responses: {
    200: {
      description: 'One line per registered guest; bookings without a registration have no line (see /arrivals).',
      content: { 'text/csv': { schema: z.string() } },
    },
  },
});

const getGuests: Handler<typeof getRoute> = async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const { db, config } = c.var.services;
  await findCompany(db, company_id);
  const route = `${c.req.method} ${c.req.routePath}`;
  return c.json(await readRegistration(db, company_id, reference, { actor: 'admin', route, keyring: keyringOf(config) }), 200);
};

const eraseGuests: Handler<typeof eraseRoute> = async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const { db, now } = c.var.services;
  await findCompany(db, company_id);
  return c.json(await eraseRegistration(db, company_id, reference, now()), 200);
};

const listArrivals: Handler<typeof arrivalsRoute> = async (c) => {
  const { company_id } = c.req.valid('param');
  const { arrival, registration } = c.req.valid('query');
  const { db, now } = c.var.services;
  await findCompany(db, company_id);
  const all = await arrivals(db, company_id, arrival, now());
  const results = all.filter(
    (a) =>
      registration === undefined ||
      a.registration === registration ||
      (registration === 'not_complete' && a.registration !== 'complete'),
  );
  return c.json({ results, next_cursor: null }, 200);
};

const exportDet: Handler<typeof detRoute> = async (c) => {
  const { company_id } = c.req.valid('param');
  const { arrival } = c.req.valid('query');
  const { db, now, config } = c.var.services;
  const company = await findCompany(db, company_id);
  const route = `${c.req.method} ${c.req.routePath}`;
  const rows = await arrivingRegistrations(db, company.id, arrival, now(), { actor: 'admin', route });
  return c.body(await detCsv(rows, keyringOf(config)), 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="det-arrivals-${arrival}.csv"`,
    'Cache-Control': 'no-store',
  });
};

export const guestRegistrationsAdmin = createRouter()
  .openapi(getRoute, getGuests)
  .openapi(eraseRoute, eraseGuests)
  .openapi(arrivalsRoute, listArrivals)
  .openapi(detRoute, exportDet);
