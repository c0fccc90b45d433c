import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { noQuery } from '../../schema/common/api';
import type { Portal } from '../../schema/common/permits';
import { FeedParams } from '../../schema/portals/feeds';
import { feedAnswer } from './feed-answer';

const feedRoute = <const P extends string>(portal: Portal, file: P, name: string, format: string) =>
  defineRoute({
    method: 'get',
    path: `/feeds/{token}/${file}`,
    operationId: portal === 'propertyfinder' ? 'getPropertyFinderFeed' : 'getBayutFeed',
    tags: ['Portals'],
    summary: `The company’s ${name} XML feed`,
    description: `The ${format}, for the portal to fetch by URL (no key: the token in the path is the secret; the admin lists and rotates it). Every published listing the portal takes (the portal check says why another is left out), streamed. A weak ETag and \`Cache-Control: no-cache\`: a repeated fetch is a cheap 304. Any other token, a rotated one included, is 404.`,
    access: { kind: 'public', scopes: ['read:listings'] },
    revalidate: true,
    request: { params: FeedParams, query: noQuery },
    responses: {
      200: {
        description: `The feed (${format})`,
        content: { 'application/xml': { schema: z.string().openapi({ example: '<?xml version="1.0" encoding="UTF-8"?>…' }) } },
      },
    },
  });

const propertyFinderRoute = feedRoute(
  'propertyfinder',
  'propertyfinder.xml',
  'Property Finder',
  'Property Finder agency feed format (`<list>` of `<property>`)',
);
const bayutRoute = feedRoute(
  'bayut',
  'bayut.xml',
  'Bayut and dubizzle',
  'Bayut/dubizzle XML feed format (`<Properties>` of `<Property>`)',
);

const propertyFinderFeed: Handler<typeof propertyFinderRoute> = async function propertyFinderFeed(c) {
  return feedAnswer(c, 'propertyfinder', c.req.valid('param').token);
};

const bayutFeed: Handler<typeof bayutRoute> = async function bayutFeed(c) {
  return feedAnswer(c, 'bayut', c.req.valid('param').token);
};

export const feeds = createRouter().openapi(propertyFinderRoute, propertyFinderFeed).openapi(bayutRoute, bayutFeed);
