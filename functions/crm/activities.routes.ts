import type { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import type { Executor } from '../../lib/db/index';
import { ProblemSchema } from '../../schema/common/api';
import { ActivitiesQuery, ActivityInput, ActivityListSchema, ActivitySchema } from '../../schema/crm/activities';
import type { ActivityRow } from '../../schema/crm/db';
import { jsonBody } from '../../schema/common/api';
import { createActivity, selectActivities } from './activities';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { crmRoute } from './route';
import { auditRead } from '../../lib/audit';
import { parseExternal, syncPage, syncSort } from '../../lib/sync';

type ActivityView = z.infer<typeof ActivitySchema>;
type ActivityRecord = ActivityRow & { lead_reference: string | null; person_reference: string | null };

const sort = syncSort('activities', 'uuid');
const activity = (description: string) => ({ description, content: { 'application/json': { schema: ActivitySchema } } });

function present(row: ActivityRecord): ActivityView {
  return {
    reference: row.reference,
    type: row.type,
    source: row.source,
    external_id: row.external_id,
    lead: row.lead_reference,
    person: row.person_reference,
    by: row.member_id,
    body: row.body,
    occurred_at: new Date(row.occurred_at).toISOString(),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Activities that name a lead or a person carry personal data: their reads are audited. */
const personal = (views: ActivityView[]) => views.filter((v) => v.lead !== null || v.person !== null).map((v) => v.reference);

async function activityView(db: Executor, companyId: string, id: string): Promise<ActivityView> {
  return present(await selectActivities(db, companyId).where('activities.id', '=', id).executeTakeFirstOrThrow());
}

const listRoute = crmRoute('read:followups', {
  method: 'get',
  path: '/activities',
  summary: 'Timeline entries, in (updated_at, id) order for sync',
  request: { query: ActivitiesQuery },
  responses: { 200: { description: 'A page of activities', content: { 'application/json': { schema: ActivityListSchema } } } },
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
    201: activity('A new activity'),
    200: activity('The activity logged before with the same source and external_id (the first record)'),
    409: { description: 'The lead or person is erased', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});

export const activities = createRouter()
  .openapi(listRoute, async (c) => {
    const query = c.req.valid('query');
    const db = c.var.services.db;
    let select = selectActivities(db, c.var.company.id);
    if (query.external) {
      const { source, id } = parseExternal(query.external);
      select = select.where('activities.source', '=', source).where('activities.external_id', '=', id);
    }
    const page = await syncPage(select, sort, query);
    const results = page.rows.map(present);
    await auditRead(c, personal(results));
    return c.json({ results, next_cursor: page.next_cursor }, 200);
  })
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const { db } = c.var.services;
    const company = c.var.company;
    const result = await transactionRetryingConflict(db, (trx) => createActivity(trx, company, input, actorOf(c.var.caller)));
    const view = await activityView(db, company.id, result.id);
    await auditRead(c, personal([view]));
    return c.json(view, result.created ? 201 : 200);
  });
