import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  EndInput,
  LeaseInput,
  LeaseListSchema,
  LeaseParams,
  LeasePatchInput,
  LeaseSchema,
  LeasesQuery,
  NoticeInput,
  RenewInput,
} from '../../schema/leases/leases';
import { endLease } from './end';
import { giveNotice } from './notices';
import { renewLease } from './renew';
import { activateLease, updateLease } from './changes';
import { createLease, selectLeases } from './leases';
import { type LeaseRecord, type LeaseView, presentLeases } from './leases.present';
import { leasesRoute } from './route';

/** A lease names its renter and landlord (personal data): every read is audited. */
const resource = syncResource<LeaseRecord, LeaseView>('leases', {
  idType: 'uuid',
  noun: 'lease',
  external: 'lease',
  select: selectLeases,
  present: (services, rows) => presentLeases(services.db, rows),
  personal: (view) => view.reference,
});

const record = { table: 'leases', column: 'reference', param: 'reference' } as const;

export const leaseExample = {
  home: 'marina-gate-1br-furnished',
  renter: 'P-7K3M9Q2XAB',
  landlord: 'P-4H8N2R6TCD',
  term: { start: '2027-01-01', end: '2027-12-31' },
  rent: { amount: '120000.00', period: 'year' as const },
  deposit: '6000.00',
  schedule: { payments: 4 },
  external: { source: 'yardi', id: 'lease-1001' },
};

const listRoute = leasesRoute('read:leases', {
  method: 'get',
  path: '/leases',
  summary: 'Leases, in (updated_at, id) order for sync',
  request: { query: LeasesQuery },
  responses: { 200: json(LeaseListSchema, 'A page of leases') },
});
const oneRoute = leasesRoute('read:leases', {
  method: 'get',
  path: '/leases/{reference}',
  record,
  summary: 'One lease, with its notices and payment schedule',
  request: { params: LeaseParams, query: noQuery },
  responses: { 200: json(LeaseSchema, 'The lease') },
});
const addRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/leases',
  summary: 'Add a draft lease with its payment schedule',
  request: { body: jsonBody(LeaseInput, leaseExample) },
  responses: {
    201: json(LeaseSchema, 'A new draft lease'),
    200: json(LeaseSchema, 'The lease added before with the same external id'),
  },
});

const patchRoute = leasesRoute('write:leases', {
  method: 'patch',
  path: '/leases/{reference}',
  record,
  summary: 'Change a draft’s terms (schedule regenerated), or registration, fee, handler, notes and your id at any time',
  request: {
    params: LeaseParams,
    body: jsonBody(LeasePatchInput, { registration: 'EJ-2027-004512', notes: 'Keys handed over.' }),
  },
  responses: {
    200: json(LeaseSchema, 'The lease'),
    409: problem('`lease_terms_locked`: the lease is no longer a draft, so its terms do not change'),
  },
});

const activateRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/leases/{reference}/activate',
  record,
  summary: 'Activate a draft lease',
  request: { params: LeaseParams },
  responses: {
    200: json(LeaseSchema, 'The active lease (also when it was active already)'),
    409: problem('`lease_home_occupied`: another lease of the home is active; `invalid_transition`: the lease has ended'),
  },
});

const noticeRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/leases/{reference}/notice',
  operationId: 'recordLeaseNotice',
  record,
  summary: 'Record a notice given on an active lease (to vacate, to renew, a rent change)',
  request: {
    params: LeaseParams,
    body: jsonBody(NoticeInput, { given_on: '2027-09-15', by: 'renter', intent: 'renew', proposed_rent: '126000.00' }),
  },
  responses: {
    200: json(LeaseSchema, 'The lease with the notice listed and its warnings recomputed'),
    409: problem('`invalid_transition`: only an active lease takes notices'),
  },
});

const renewRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/leases/{reference}/renew',
  summary: 'The one renewal draft of an active or ended lease (sent again: the same lease)',
  request: { params: LeaseParams, body: jsonBody(RenewInput, { rent: { amount: '126000.00', period: 'year' } }) },
  responses: {
    201: json(LeaseSchema, 'The new renewal draft'),
    200: json(LeaseSchema, 'The lease’s renewal, made before (whatever its status)'),
    409: problem('`invalid_transition`: a draft is not renewed'),
  },
});
const endRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/leases/{reference}/end',
  record,
  summary: 'End an active lease with its deposit’s outcome (payments due after its end are cancelled)',
  request: {
    params: LeaseParams,
    body: jsonBody(EndInput, {
      ended_on: '2027-12-31',
      deposit: { outcome: 'returned_with_deductions', deductions: '1500.00', reason: 'Repainting' },
    }),
  },
  responses: {
    200: json(LeaseSchema, 'The ended lease'),
    409: problem('`invalid_transition`: only an active lease ends'),
  },
});

export const leases = createRouter()
  .openapi(listRoute, async (c) => {
    const { status, home, ...query } = c.req.valid('query');
    const filtered = {
      ...resource,
      select: (db: Parameters<typeof selectLeases>[0], companyId: string) => {
        let select = selectLeases(db, companyId);
        if (status !== undefined) select = select.where('leases.status', '=', status);
        if (home !== undefined) select = select.where('home.slug_en', '=', home);
        return select;
      },
    };
    return c.json(await syncList(c, filtered, query), 200);
  })
  .openapi(oneRoute, async (c) => c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200))
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) =>
      createLease(trx, company, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, result.id), result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const id = await transactionRetryingConflict(c.var.services.db, (trx) =>
      updateLease(trx, company, reference, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, id), 200);
  })
  .openapi(activateRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const { company, services } = c.var;
    const id = await activateLease(services.db, company, reference, services.now(), actorOf(c.var.caller));
    return c.json(await readWritten(c, resource, id), 200);
  })
  .openapi(noticeRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const { company, services } = c.var;
    const id = await services.db
      .transaction()
      .execute((trx) => giveNotice(trx, company, reference, input, services.now(), actorOf(c.var.caller)));
    return c.json(await readWritten(c, resource, id), 200);
  })
  .openapi(endRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const { company, services } = c.var;
    const id = await services.db
      .transaction()
      .execute((trx) => endLease(trx, company, reference, input, services.now(), actorOf(c.var.caller)));
    return c.json(await readWritten(c, resource, id), 200);
  })
  .openapi(renewRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) =>
      renewLease(trx, company, reference, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, result.id), result.created ? 201 : 200);
  });
