import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, listOf, pageQuery } from '../../schema/common/api';
import { SitemapEntrySchema } from '../../schema/catalogue/listings';
import { catalogueAccess, jsonBytes, renderOf } from './cache';
import { sitemapPage } from './pages';

const SitemapListSchema = listOf(SitemapEntrySchema, 'SitemapList');

const route = defineRoute({
  method: 'get',
  path: '/sitemap',
  summary: 'Every published listing’s path in every language, with lastmod and hreflang alternates',
  ...catalogueAccess(),
  request: { query: z.strictObject(pageQuery) },
  responses: {
    200: json(SitemapListSchema, 'Sitemap entries'),
  },
});

const listSitemap: Handler<typeof route> = async function listSitemap(c) {
  const page = await sitemapPage(c.var.services.db, await renderOf(c), c.req.valid('query'));
  return jsonBytes<z.infer<typeof SitemapListSchema>>(c, page);
};

export const sitemap = createRouter().openapi(route, listSitemap);
