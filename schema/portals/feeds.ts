import { z } from '@hono/zod-openapi';
import { portals } from '../common/permits';

/** The portal feeds' URLs (issue 25): one per portal, with the company's secret token. */
export const PortalFeedSchema = z
  .object({
    portal: z.enum(portals),
    url: z.string().url().openapi({
      example:
        'https://api.example-properties.ae/api/v1/feeds/pft_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG/propertyfinder.xml',
    }),
  })
  .openapi('PortalFeed');

export const PortalFeedListSchema = z
  .object({ results: z.array(PortalFeedSchema), next_cursor: z.null() })
  .openapi('PortalFeedList');

/** A feed token: `pft_` and 43 URL-safe characters (256 random bits); anything else is not found. */
export const FeedParams = z.object({
  token: z.string().min(1).max(100).openapi({ description: 'The company’s secret feed token (the admin lists the URLs).' }),
});
