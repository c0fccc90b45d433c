import { createRouter } from '../../lib/app';
import { syncList, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { ActivitiesQuery, ActivityInput, ActivityListSchema, ActivitySchema } from '../../schema/crm/activities';
import { addActivity } from './activities';
import { presentActivity, selectActivities } from './activities.present';
import { followupResource } from './followups';
import { crmRoute } from './scopes';

/** Activities that name a lead or a person carry personal data: their reads are audited. */
const activityResource = followupResource('activity', {
  select: selectActivities,
  present: presentActivity,
  reference: (view) => view.reference,
});

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

const listActivities: Handler<typeof listRoute> = async (c) =>
  c.json(await syncList(c, activityResource, c.req.valid('query')), 200);

const postActivity: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, activityResource, (scope) => addActivity(scope, c.req.valid('json')));
  return c.json(view, status);
};

export const activities = createRouter().openapi(listRoute, listActivities).openapi(addRoute, postActivity);
