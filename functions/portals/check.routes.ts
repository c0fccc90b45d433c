import { createRouter } from '../../lib/app';
import { type Handler, serverRoutes } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { PortalCheckListSchema, PortalCheckQuery } from '../../schema/portals/check';
import { portalCheckPage } from './check';

const portalsRoute = serverRoutes('Portals', ['read:listings']);

const checkRoute = portalsRoute('read:listings', {
  method: 'get',
  path: '/portal-check',
  operationId: 'listPortalChecks',
  summary: 'What keeps each listing off each portal',
  description:
    'For each draft and published listing (in id order), its state on Property Finder and Bayut/dubizzle: whether the feed carries it, whether it is sent there, and the problems the portal would refuse it for (`permit_missing`, `permit_expired`, `permit_duplicate`, `price_missing`, `too_few_photos`, `description_too_short`, `agent_missing`, `property_type_unknown`, `location_missing`, `size_missing`, `offplan_details_missing`). `blocked=true` lists only those with a problem.',
  request: { query: PortalCheckQuery },
  responses: { 200: json(PortalCheckListSchema, 'A page of listings with their portal states') },
});

const listPortalChecks: Handler<typeof checkRoute> = async function listPortalChecks(c) {
  const page = await portalCheckPage(c.var.services.db, c.var.company, c.var.services.now(), c.req.valid('query'));
  return c.json(page, 200);
};

export const portalCheck = createRouter().openapi(checkRoute, listPortalChecks);
