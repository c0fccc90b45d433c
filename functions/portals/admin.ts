import { createRouter } from '../../lib/app';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { PortalCheckListSchema, PortalCheckQuery } from '../../schema/portals/check';
import { PortalFeedListSchema } from '../../schema/portals/feeds';
import { portalCheckPage } from './check';
import { companyHosts, feedToken, feedUrls, rotateFeedToken } from './tokens';

/** The portals' operator routes (composed into /admin/v1 by functions/app.ts). */

const listFeedsRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/portal-feeds',
  operationId: 'listCompanyPortalFeeds',
  summary: 'The URLs of the company’s portal feeds (Property Finder, Bayut/dubizzle)',
  description: 'Give each portal its URL. The first read issues the company’s secret token; it stays until rotated.',
  request: { params: companyParam },
  responses: { 200: json(PortalFeedListSchema, 'One URL per portal') },
});

const rotateRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/portal-feeds/rotate',
  operationId: 'rotateCompanyPortalFeeds',
  summary: 'Replace the feeds’ secret token: the old URLs answer 404 from now on',
  request: { params: companyParam },
  responses: { 200: json(PortalFeedListSchema, 'The new URLs') },
});

const checkRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/portal-check',
  operationId: 'listCompanyPortalChecks',
  summary: 'What keeps each listing off each portal (as GET /api/v1/portal-check answers the company’s server keys)',
  request: { params: companyParam, query: PortalCheckQuery },
  responses: { 200: json(PortalCheckListSchema, 'A page of listings with their portal states') },
});

const listFeeds: Handler<typeof listFeedsRoute> = async function listPortalFeeds(c) {
  const { db, config, companyCache } = c.var.services;
  const company = await findCompany(db, c.req.valid('param').company_id);
  const [{ token, issued }, hosts] = await Promise.all([
    feedToken(db, company, config.WEBHOOK_SECRET_KEY),
    companyHosts(db, company.id),
  ]);
  // A read that issued the first token wrote the company row: this process's next reads wait for its notification.
  if (issued) companyCache?.afterWrite();
  return c.json({ results: feedUrls(company, hosts, token, c.req.url), next_cursor: null }, 200);
};

const rotateFeeds: Handler<typeof rotateRoute> = async function rotatePortalFeeds(c) {
  const { db, config } = c.var.services;
  const companyId = c.req.valid('param').company_id;
  const token = await rotateFeedToken(db, companyId, config.WEBHOOK_SECRET_KEY);
  const [company, hosts] = await Promise.all([findCompany(db, companyId), companyHosts(db, companyId)]);
  return c.json({ results: feedUrls(company, hosts, token, c.req.url), next_cursor: null }, 200);
};

const listChecks: Handler<typeof checkRoute> = async function listCompanyPortalChecks(c) {
  const { db, now } = c.var.services;
  const company = await findCompany(db, c.req.valid('param').company_id);
  return c.json(await portalCheckPage(db, company, now(), c.req.valid('query')), 200);
};

export const portalsAdmin = createRouter()
  .openapi(listFeedsRoute, listFeeds)
  .openapi(rotateRoute, rotateFeeds)
  .openapi(checkRoute, listChecks);
