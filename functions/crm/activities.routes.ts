import type { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { iso } from '../../lib/dates';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { readWritten, syncList } from '../../lib/resources';
import { json, jsonBody, problem } from '../../schema/common/api';
import { ActivitiesQuery, ActivityInput, ActivityListSchema, ActivitySchema } from '../../schema/crm/activities';
import type { ActivityRow } from '../../schema/crm/db';
import { createActivity, selectActivities } from './activities';
import { type FollowupRecord, followupResource } from './followups';
import { crmRoute } from './route';

type ActivityView = z.infer<typeof ActivitySchema>;

/** Activities that name a lead or a person carry personal data: their reads are audited. */
const resource = followupResource('activity', { select: selectActivities, present, reference: (view) => view.reference });

function present(row: FollowupRecord<ActivityRow>): ActivityView {
  return {
    reference: row.reference,
    type: row.type,
    source: row.source,
    external_id: row.external_id,
    lead: row.lead_reference,
    person: row.person_reference,
    by: row.member_id,
    body: row.body,
    occurred_at: iso(row.occurred_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const listRoute = crmRoute('read:followups', {
  method: 'get',
  path: '/activities',
  summary: 'Timeline entries, in (updated_at, id) order for sync',
  request: { query: ActivitiesQuery },
  responses: { 200: json(ActivityListSchema, 'A page of activities') },
});
const addRoute = crmRoute('write:followups', {
  method: 'post',
  path: '/activities',
  summary: 'Log a note, call, meeting, message or email (once per source and external_id)',
  request: {
    body: jsonBody(ActivityInput, {
      type: 'note',
      source: 'hubspot',
      external_id: 'note-4711',
      body: 'Asked for a second viewing.',
    }),
  },
  responses: {
    201: json(ActivitySchema, 'A new activity'),
    200: json(ActivitySchema, 'The activity logged before with the same source and external_id (the first record)'),
    409: problem('The lead or person is erased'),
  },
});

export const activities = createRouter()
  .openapi(listRoute, async (c) => c.json(await syncList(c, resource, c.req.valid('query')), 200))
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) =>
      createActivity(trx, company, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, result.id), result.created ? 201 : 200);
  });
