import { createRouter } from '../../lib/app';
import { narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery } from '../../schema/common/api';
import {
  InspectionInput,
  InspectionListSchema,
  InspectionParams,
  InspectionSchema,
  InspectionsQuery,
} from '../../schema/maintenance/inspections';
import { planInspection } from './inspections';
import { type InspectionRecord, type InspectionView, presentInspection, selectInspections } from './inspections.present';
import { maintenanceRoute } from './scopes';

/**
 * An inspection on a lease is about its renter's home (its notes and each room's notes may name them, and erasure
 * empties them): its reads are audited. A routine inspection of a home without a lease names nobody.
 */
const resource = syncResource<InspectionRecord, InspectionView>('inspections', {
  idType: 'uuid',
  noun: 'inspection',
  external: 'inspection',
  select: selectInspections,
  present: (_services, rows) => rows.map(presentInspection),
  personal: (view) => (view.lease === null ? undefined : view.reference),
});

const listRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/inspections',
  summary: 'Move-in, move-out and routine inspections with their areas; (updated_at, id) order for sync',
  request: { query: InspectionsQuery },
  responses: { 200: json(InspectionListSchema, 'A page of inspections') },
});
const oneRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/inspections/{reference}',
  summary: 'One inspection',
  request: { params: InspectionParams, query: noQuery },
  responses: { 200: json(InspectionSchema, 'The inspection') },
});
const addRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/inspections',
  summary: 'Plan an inspection (a lease’s move-in or move-out once: planned again, the first comes back)',
  request: {
    body: jsonBody(InspectionInput, {
      kind: 'routine',
      home: 'marina-gate-1br-furnished',
      planned_on: '2027-02-01',
      areas: [{ name: 'Kitchen' }, { name: 'Bathroom', condition: 'fair', notes: 'Grout stained.' }],
    }),
  },
  responses: {
    201: json(InspectionSchema, 'The planned inspection'),
    200: json(InspectionSchema, 'The lease’s move-in or move-out planned before, or the one with the same external id'),
  },
});

const listInspections: Handler<typeof listRoute> = async (c) => {
  const { kind, home, lease, ...query } = c.req.valid('query');
  const filtered = narrowed(resource, selectInspections, (select) =>
    select
      .$if(kind !== undefined, (q) => q.where('inspections.kind', '=', kind!))
      .$if(home !== undefined, (q) => q.where('home.slug_en', '=', home!))
      .$if(lease !== undefined, (q) => q.where('lease.reference', '=', lease!)),
  );
  return c.json(await syncList(c, filtered, query), 200);
};

const oneInspection: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200);

const postInspection: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, resource, (scope) => planInspection(scope, c.req.valid('json')));
  return c.json(view, status);
};

export const inspections = createRouter()
  .openapi(listRoute, listInspections)
  .openapi(oneRoute, oneInspection)
  .openapi(addRoute, postInspection);
