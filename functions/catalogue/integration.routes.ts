import type { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { type Handler, serverRoutes } from '../../lib/routes';
import { ExternalIdParams, ListingWriteInput, ListingWrittenSchema } from '../../schema/catalogue/integration';
import { json, jsonBody, problem } from '../../schema/common/api';
import { moveListing, writeListing } from './integration';

/**
 * The catalogue written by integrations (issue 38; docs/api-reference.md, "The catalogue written by integrations"): a
 * company's listing system with a server key holding `write:listings` creates, replaces, publishes and withdraws the
 * listings it keeps under its own ids. The public reads (GET /listings/{slug}) are unchanged.
 */
const writeRoute = serverRoutes('Listings', ['write:listings']);

const example: z.input<typeof ListingWriteInput> = {
  slug: { en: 'marina-view-2br', ar: 'اطلالة-المارينا' },
  listing_type: 'lease',
  title: { en: 'Marina view, 2 bedrooms', ar: 'إطلالة على المارينا، غرفتان' },
  price: '120000.00',
  price_period: 'year',
  bedrooms: 2,
  city: 'dubai',
};

const putRoute = writeRoute('write:listings', {
  method: 'put',
  path: '/external-listings/{external_id}',
  operationId: 'putListingByExternalId',
  summary: 'Create or replace a listing under your own id',
  description:
    'Idempotent by `external_id` (`<source>:<id>`): the first PUT creates the listing as a draft (201, `listing.created`), a later one replaces it whole (200; `listing.updated` when something changed, nothing when the body is the same). The catalogue import’s fields and checks (400 at the field, nothing changed: an unknown place or agent, a price without its period, an amount with too many digits, …), without `status` (publish and withdraw are actions); photos by their address in the company’s media store with alternative text per language. A slug another listing holds is 409 at `slug.en` or `slug.ar`. `warnings`: `permit_expired`, `no_photos`. Pages and feeds follow at once.',
  request: { params: ExternalIdParams, body: jsonBody(ListingWriteInput, example) },
  responses: {
    200: json(ListingWrittenSchema, 'Replaced (or unchanged)'),
    201: json(ListingWrittenSchema, 'Created as a draft'),
    409: problem('`conflict`: another listing of the company has the slug.'),
  },
});

const actionRoute = (action: 'publish' | 'withdraw') =>
  writeRoute('write:listings', {
    method: 'post',
    path: `/external-listings/{external_id}/${action}`,
    operationId: action === 'publish' ? 'publishListingByExternalId' : 'withdrawListingByExternalId',
    summary: action === 'publish' ? 'Publish your listing' : 'Withdraw your listing (it stays readable as withdrawn)',
    description:
      action === 'publish'
        ? 'A draft or withdrawn listing becomes published (`listing.published`; the first publication date is kept); one already published answers `changed: false`. 404 for an id the company has no listing under.'
        : 'A published listing becomes withdrawn (`listing.withdrawn`): GET /listings/{slug} then gives only its slug and status. One already withdrawn answers `changed: false`; a draft is 409 `invalid_transition`.',
    request: { params: ExternalIdParams },
    responses: {
      200: json(ListingWrittenSchema, 'Its status now'),
      409: problem('`invalid_transition`: the listing’s status does not allow it (`allowed` lists what does).'),
    },
  });

const publishRoute = actionRoute('publish');
const withdrawRoute = actionRoute('withdraw');

const putListing: Handler<typeof putRoute> = async function putListingByExternalId(c) {
  const { db, config, now } = c.var.services;
  const options = { causedBy: actorOf(c.var.caller), now: now(), mediaBaseUrl: config.MEDIA_BASE_URL };
  const { external_id } = c.req.valid('param');
  const written = await transactionRetryingConflict(db, (trx) =>
    writeListing(trx, c.var.company, external_id, c.req.valid('json'), options),
  );
  return written.created ? c.json(written, 201) : c.json(written, 200);
};

const moveHandler = (to: 'published' | 'withdrawn'): Handler<typeof publishRoute> =>
  async function moveListingByExternalId(c) {
    const { db, config, now } = c.var.services;
    const options = { causedBy: actorOf(c.var.caller), now: now(), mediaBaseUrl: config.MEDIA_BASE_URL };
    return c.json(await moveListing(db, c.var.company, c.req.valid('param').external_id, to, options), 200);
  };

export const integrationWrites = createRouter()
  .openapi(putRoute, putListing)
  .openapi(publishRoute, moveHandler('published'))
  .openapi(withdrawRoute, moveHandler('withdrawn'));
