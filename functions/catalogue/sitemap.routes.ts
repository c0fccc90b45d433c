import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import { json, listOf, pageQuery } from '../../schema/common/api';
import { SitemapEntrySchema } from '../../schema/catalogue/listings';
import { catalogueAccess } from './cache';
import { publishedListings } from './listings';
import { jsonText } from './listings.routes';
import { bodiesOf, listBody, renderContext, withStoredForm } from './renders';

export const sitemapSort = {
  name: 'sitemap',
  columns: [
    { ref: 'l.published_at', direction: 'asc', type: 'timestamptz' },
    { ref: 'l.id', direction: 'asc', type: 'uuid' },
  ],
} as const satisfies KeysetSort;

const route = defineRoute({
  method: 'get',
  path: '/sitemap',
  summary: 'Every published listing’s path in every language, with lastmod and hreflang alternates',
  ...catalogueAccess(),
  request: { query: z.strictObject(pageQuery) },
  responses: {
    200: json(listOf(SitemapEntrySchema, 'SitemapList'), 'Sitemap entries'),
  },
});

export const sitemap = createRouter().openapi(route, async (c) => {
  const query = c.req.valid('query');
  const db = c.var.services.db;
  const render = await renderContext(c.var.company, c.var.services.config.MEDIA_BASE_URL);
  const rows = await paginate(
    withStoredForm(publishedListings(db, c.var.company), render, 'sitemap'),
    sitemapSort,
    query,
  ).execute();
  const page = pageOf(rows, sitemapSort, query.page_size);
  return jsonText(c, listBody(await bodiesOf(db, render, page.rows, 'sitemap'), page.next_cursor));
});
