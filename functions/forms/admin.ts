import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { DraftListingSchema } from '../../schema/forms/draft-listing';
import {
  InboundChannelCreated,
  InboundChannelInput,
  InboundChannelList,
  InboundChannelPatch,
  InboundChannelSchema,
} from '../../schema/forms/inbound';
import { draftListing } from './draft-listing';
import { draftListingView } from './draft-listing.present';
import {
  changeChannelSecrets,
  channelOrigin,
  createChannel,
  deleteChannel,
  listChannels,
  originOf,
  rotateChannelToken,
} from './inbound-channels';
import { channelView, madeChannelView } from './inbound-channels.present';

/** The forms group's operator routes: listing requests turned into draft listings, and the inbound channels. */

const leadParams = companyParam.extend({ reference: z.string().regex(/^L-[0-9A-Z]{10}$/) });
const channelParams = companyParam.extend({ channel_id: z.string().uuid() });

const draftRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/leads/{reference}/draft-listing',
  summary: 'Turn a listing request (a lead whose service is of kind listing_request) into a draft listing',
  description:
    "Built from the request's details: purpose (required, the listing type), area (with its city), property_type, bedrooms, bathrooms, size_sqm, price with price_period. Once per lead; publish it with POST …/listings/{slug}/publish.",
  request: { params: leadParams },
  responses: {
    201: json(DraftListingSchema, 'Created'),
    404: problem('Unknown company or lead'),
    409: problem('Not a listing request, erased, already drafted, or without a valid purpose (`conflict`).'),
  },
});

const listChannelsRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/inbound-channels',
  summary: "The company's inbound channels (WhatsApp, Property Finder, signed senders)",
  request: { params: companyParam },
  responses: {
    200: json(InboundChannelList, 'Each channel, its address shown with its token’s first characters'),
    404: problem('Unknown company'),
  },
});

const createChannelRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/inbound-channels',
  summary: 'Add an inbound channel: a receiver at a secret address for one source',
  description:
    'One channel per source. The answer gives the address (with its token) and any generated secret and verify token once: only a hash of the token is kept, and the secrets are kept encrypted (docs/api-reference.md, "Inbound channels").',
  request: { params: companyParam, body: jsonBody(InboundChannelInput, { kind: 'signed', source: 'bayut' }) },
  responses: {
    201: json(InboundChannelCreated, 'The channel, with its address and secrets shown this once'),
    404: problem('Unknown company'),
    409: problem('The company already has a channel for this source (`conflict`).'),
    503: problem('No encryption key is configured for the secrets (`encryption_unavailable`).'),
  },
});

const patchChannelRoute = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}/inbound-channels/{channel_id}',
  summary: "Replace an inbound channel's secret or verify token",
  request: { params: channelParams, body: jsonBody(InboundChannelPatch, { secret: 'the-new-app-secret' }) },
  responses: { 200: json(InboundChannelSchema, 'The channel'), 404: problem('Unknown company or channel') },
});

const rotateChannelRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/inbound-channels/{channel_id}/rotate-token',
  summary: 'Give an inbound channel a new address: the old one is refused (404) at once',
  request: { params: channelParams },
  responses: {
    200: json(InboundChannelCreated, 'The channel with its new address, shown this once'),
    404: problem('Unknown company or channel'),
  },
});

const deleteChannelRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/inbound-channels/{channel_id}',
  summary: 'Remove an inbound channel (its leads stay)',
  request: { params: channelParams },
  responses: { 204: { description: 'Removed' }, 404: problem('Unknown company or channel') },
});

const draftListingFromRequest: Handler<typeof draftRoute> = async function draftListingFromRequest(c) {
  const { company_id, reference } = c.req.valid('param');
  const { db, config } = c.var.services;
  return c.json(draftListingView(await draftListing(db, company_id, reference, keyringOf(config))), 201);
};

const listInboundChannels: Handler<typeof listChannelsRoute> = async function listInboundChannels(c) {
  const { company_id } = c.req.valid('param');
  const { db } = c.var.services;
  await findCompany(db, company_id);
  const origin = await channelOrigin(db, company_id);
  return c.json({ results: (await listChannels(db, company_id)).map((channel) => channelView(channel, origin)) }, 200);
};

const addInboundChannel: Handler<typeof createChannelRoute> = async function addInboundChannel(c) {
  const { company_id } = c.req.valid('param');
  const { db, config } = c.var.services;
  const made = await createChannel(db, company_id, c.req.valid('json'), keyringOf(config));
  return c.json(madeChannelView(made, originOf(made.channel.hosts)), 201);
};

const changeInboundChannel: Handler<typeof patchChannelRoute> = async function changeInboundChannel(c) {
  const { company_id, channel_id } = c.req.valid('param');
  const { db, config } = c.var.services;
  const channel = await changeChannelSecrets(db, company_id, channel_id, c.req.valid('json'), keyringOf(config));
  return c.json(channelView(channel, originOf(channel.hosts)), 200);
};

const rotateInboundToken: Handler<typeof rotateChannelRoute> = async function rotateInboundToken(c) {
  const { company_id, channel_id } = c.req.valid('param');
  const { db, now } = c.var.services;
  const made = await rotateChannelToken(db, company_id, channel_id, now());
  return c.json(madeChannelView(made, originOf(made.channel.hosts)), 200);
};

const removeInboundChannel: Handler<typeof deleteChannelRoute> = async function removeInboundChannel(c) {
  const { company_id, channel_id } = c.req.valid('param');
  await deleteChannel(c.var.services.db, company_id, channel_id);
  return c.body(null, 204);
};

export const formsAdmin = createRouter()
  .openapi(draftRoute, draftListingFromRequest)
  .openapi(listChannelsRoute, listInboundChannels)
  .openapi(createChannelRoute, addInboundChannel)
  .openapi(patchChannelRoute, changeInboundChannel)
  .openapi(rotateChannelRoute, rotateInboundToken)
  .openapi(deleteChannelRoute, removeInboundChannel);
