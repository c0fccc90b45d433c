import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import type { LeaseStatus } from '../../schema/leases/db';
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
import { activateLease, changeLease } from './lease-changes';
import { createLease } from './leases';
import { type LeaseRecord, type LeaseView, presentLease, selectLeases } from './leases.present';
import { giveNotice } from './notices';
import { renewLease } from './renew';
import { leasesRoute } from './scopes';

/** A lease names its renter and landlord (personal data): every read is audited. */
const leaseResource = syncResource<LeaseRecord, LeaseView>('leases', {
  idType: 'uuid',
  noun: 'lease',
  external: 'lease',
  select: selectLeases,
  present: (_services, rows) => rows.map(presentLease),
  personal: (view) => view.reference,
});

/** The list's filters: status and home. */
const filteredLeases = ({ status, home }: { status?: LeaseStatus; home?: string }) =>
  narrowed(leaseResource, selectLeases, (select) => {
    let narrowedSelect = select;
    if (status !== undefined) narrowedSelect = narrowedSelect.where('leases.status', '=', status);
    if (home !== undefined) narrowedSelect = narrowedSelect.where('home.slug_en', '=', home);
    return narrowedSelect;
  });

const versioned = { table: 'leases', column: 'reference', param: 'reference' } as const;

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
  versioned,
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
  versioned,
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
  versioned,
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
  versioned,
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
  versioned,
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

const listLeases: Handler<typeof listRoute> = async (c) => {
  const { status, home, ...query } = c.req.valid('query');
  return c.json(await syncList(c, filteredLeases({ status, home }), query), 200);
};

const oneLease: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, leaseResource, 'reference', c.req.valid('param').reference), 200);

const postLease: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, leaseResource, (scope) => createLease(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchLease: Handler<typeof patchRoute> = async (c) =>
  c.json(
    await changed(c, leaseResource, (scope) => changeLease(scope, c.req.valid('param').reference, c.req.valid('json'))),
    200,
  );

const activate: Handler<typeof activateRoute> = async (c) =>
  c.json(await changed(c, leaseResource, (scope) => activateLease(scope, c.req.valid('param').reference)), 200);

const notice: Handler<typeof noticeRoute> = async (c) =>
  c.json(await changed(c, leaseResource, (scope) => giveNotice(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const end: Handler<typeof endRoute> = async (c) =>
  c.json(await changed(c, leaseResource, (scope) => endLease(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const renew: Handler<typeof renewRoute> = async (c) => {
  const { view, status } = await written(c, leaseResource, (scope) =>
    renewLease(scope, c.req.valid('param').reference, c.req.valid('json')),
  );
  return c.json(view, status);
};

export const leases = createRouter()
  .openapi(listRoute, listLeases)
  .openapi(oneRoute, oneLease)
  .openapi(addRoute, postLease)
  .openapi(patchRoute, patchLease)
  .openapi(activateRoute, activate)
  .openapi(noticeRoute, notice)
  .openapi(endRoute, end)
  .openapi(renewRoute, renew);
