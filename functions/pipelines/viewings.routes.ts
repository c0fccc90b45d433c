import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  ViewingInput,
  ViewingListSchema,
  ViewingParams,
  ViewingPatchInput,
  ViewingSchema,
  ViewingsQuery,
} from '../../schema/pipelines/viewings';
import { pipelinesRoute } from './scopes';
import { addViewing, changeViewing } from './viewings';
import { presentViewing, selectViewings, type ViewingRecord, type ViewingView } from './viewings.present';

/** A viewing carries staff's feedback on a person's visit: every read is audited. */
const resource = syncResource<ViewingRecord, ViewingView>('viewings', {
  idType: 'uuid',
  noun: 'viewing',
  external: 'viewing',
  select: selectViewings,
  present: (_services, rows) => rows.map(presentViewing),
  personal: (view) => view.reference,
});

const versioned = { table: 'viewings', column: 'reference', param: 'reference' } as const;

export const viewingExample = {
  deal: 'D-7K3M9Q2XAB',
  time: '2027-01-15T10:00:00Z',
  external: { source: 'calendly', id: 'booking-1001' },
};

const listRoute = pipelinesRoute('read:pipelines', {
  method: 'get',
  path: '/viewings',
  summary: 'Viewings, in (updated_at, id) order for sync',
  request: { query: ViewingsQuery },
  responses: { 200: json(ViewingListSchema, 'A page of viewings') },
});
const oneRoute = pipelinesRoute('read:pipelines', {
  method: 'get',
  path: '/viewings/{reference}',
  versioned,
  summary: 'One viewing',
  request: { params: ViewingParams, query: noQuery },
  responses: { 200: json(ViewingSchema, 'The viewing') },
});
const addRoute = pipelinesRoute('write:pipelines', {
  method: 'post',
  path: '/viewings',
  summary: 'Plan a viewing on a deal',
  request: { body: jsonBody(ViewingInput, viewingExample) },
  responses: {
    201: json(ViewingSchema, 'A new planned viewing'),
    200: json(ViewingSchema, 'The viewing added before with the same external id'),
  },
});
const patchRoute = pipelinesRoute('write:pipelines', {
  method: 'patch',
  path: '/viewings/{reference}',
  versioned,
  summary: 'Change time, home or who shows it; record how it went; mark it done, cancelled or missed',
  request: { params: ViewingParams, body: jsonBody(ViewingPatchInput, { time: '2027-01-16T15:30:00Z' }) },
  responses: {
    200: json(ViewingSchema, 'The viewing'),
    409: problem('`invalid_transition`: the viewing’s status does not allow the change'),
  },
});

const listViewings: Handler<typeof listRoute> = async (c) => {
  const { deal, status, ...query } = c.req.valid('query');
  const filtered = narrowed(resource, selectViewings, (select) =>
    select
      .$if(deal !== undefined, (q) => q.where('deal.reference', '=', deal!))
      .$if(status !== undefined, (q) => q.where('viewings.status', '=', status!)),
  );
  return c.json(await syncList(c, filtered, query), 200);
};

const oneViewing: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200);

const postViewing: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, resource, (scope) => addViewing(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchViewing: Handler<typeof patchRoute> = async (c) =>
  c.json(await changed(c, resource, (scope) => changeViewing(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

export const viewings = createRouter()
  .openapi(listRoute, listViewings)
  .openapi(oneRoute, oneViewing)
  .openapi(addRoute, postViewing)
  .openapi(patchRoute, patchViewing);
