import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  ViewingInput,
  ViewingListSchema,
  ViewingParams,
  ViewingPatchInput,
  ViewingSchema,
  ViewingsQuery,
} from '../../schema/pipelines/viewings';
import { pipelinesRoute } from './route';
import { createViewing, selectViewings, updateViewing } from './viewings';
import { presentViewings, type ViewingRecord, type ViewingView } from './viewings.present';

/** A viewing carries staff's feedback on a person's visit: every read is audited. */
const resource = syncResource<ViewingRecord, ViewingView>('viewings', {
  idType: 'uuid',
  noun: 'viewing',
  external: 'viewing',
  select: selectViewings,
  present: (services, rows) => presentViewings(services.db, rows),
  personal: (view) => view.reference,
});

const record = { table: 'viewings', column: 'reference', param: 'reference' } as const;

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
  record,
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
  record,
  summary: 'Change time, home or who shows it; record how it went; mark it done, cancelled or missed',
  request: { params: ViewingParams, body: jsonBody(ViewingPatchInput, { time: '2027-01-16T15:30:00Z' }) },
  responses: {
    200: json(ViewingSchema, 'The viewing'),
    409: problem('`invalid_transition`: the viewing’s status does not allow the change'),
  },
});

export const viewings = createRouter()
  .openapi(listRoute, async (c) => {
    const { deal, status, ...query } = c.req.valid('query');
    const filtered = {
      ...resource,
      select: (db: Parameters<typeof selectViewings>[0], companyId: string) => {
        let select = selectViewings(db, companyId);
        if (deal !== undefined) select = select.where('deal.reference', '=', deal);
        if (status !== undefined) select = select.where('viewings.status', '=', status);
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
      createViewing(trx, company, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, result.id), result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const { company, services } = c.var;
    const id = await transactionRetryingConflict(services.db, (trx) =>
      updateViewing(trx, company, reference, input, services.now(), actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, id), 200);
  });
