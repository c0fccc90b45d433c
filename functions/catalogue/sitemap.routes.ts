import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import { json, listOf, pageQuery } from '../../schema/common/api';
import { SitemapEntrySchema } from '../../schema/catalogue/listings';
import { catalogueAccess } from './cache';
import { presenter } from './listings.present';
import { publishedListings } from './listings';
import { iso } from '../../lib/dates';

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
  const present = presenter(c.var.company, c.var.services.config.MEDIA_BASE_URL);
  const rows = await paginate(
    publishedListings(c.var.services.db, c.var.company).select([
      'l.id',
      'l.slug_en',
      'l.slug_ar',
      'l.listing_type',
      'l.updated_at',
    ]),
    sitemapSort,
    query,
  ).execute();
  const page = pageOf(rows, sitemapSort, query.page_size);
  const results = page.rows.map((row) => {
    const paths = present.path(row as never);
    return {
      paths,
      lastmod: iso(row.updated_at),
      alternates: [
        { hreflang: 'en', path: paths.en },
        { hreflang: 'ar', path: paths.ar },
        { hreflang: 'x-default', path: paths.en },
      ],
    };
  });
  return c.json({ results, next_cursor: page.next_cursor }, 200);
});
