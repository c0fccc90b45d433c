import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { keyringOf, openSecret, sealSecret } from '../../lib/crypto-jwe';
import { addDays } from '../../lib/dates';
import type { Db } from '../../lib/db/index';
import { answerSignatureFailure } from '../../lib/einvoice/handoff';
import type { Services } from '../../lib/env';
import { ApiError } from '../../lib/errors';
import { fieldErrors } from '../../lib/request-errors';
import type { Company } from '../../schema/platform/db';
import { RatePush, type RateRangeValue } from '../../schema/stay/rates';
import { checkedRanges, type RangePaths, writeRates } from './rates';

/**
 * A pricing tool's push (POST /api/v1/inbound/pricing; docs/api-reference.md, "Pricing tools"): PriceLabs and its
 * peers send a home's nights by date (price, minimum and maximum stay, check-in and check-out allowed, unbookable),
 * up to 730 of them. The company comes from the host; the signature is the only credential: Standard Webhooks with
 * the secret the company set for its tool (PUT /admin/v1/companies/{id}/pricing-tool), checked as the e-invoicing
 * provider's answers are (lib/einvoice/handoff.ts answerSignatureFailure: 401 `signature_rejected`, nothing read or
 * changed). The `webhook-id` is the tool's own id of the push: kept with the rows and the push, and a retry of it
 * changes nothing (`recorded: false`). The nights are then written as one change (rates.ts writeRates).
 */

/** The longest push id kept. */
const maxPushId = 200;

/** Where a push's fields are named in a 400: each night is `data.<i>`. */
const pushPaths: RangePaths = {
  starts: (i) => `data.${i}.date`,
  ends: (i) => `data.${i}.date`,
  field: (i, field) => `data.${i}.${{ price: 'price', min_nights: 'min_stay', max_nights: 'max_stay' }[field] ?? field}`,
};

export async function receiveRatePush(services: Services, company: Company, request: { body: string; headers: Headers }) {
  const now = services.now();
  const { db, config } = services;
  const tool = await db.selectFrom('pricing_tools').selectAll().where('company_id', '=', company.id).executeTakeFirst();
  if (!tool) throw new ApiError('signature_rejected', 'The company has no pricing tool configured.');
  const secret = await openSecret(keyringOf(config), tool.secret_jwe, company.id);
  const failure = answerSignatureFailure(request.body, request.headers, secret, now);
  if (failure) throw new ApiError('signature_rejected', failure);
  const pushId = request.headers.get('webhook-id') as string;
  if (pushId.length > maxPushId) {
    throw new ApiError('invalid_request', 'The webhook-id header is too long.', {
      errors: [{ path: 'webhook-id', code: 'too_big', message: `At most ${maxPushId} characters.` }],
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(request.body);
  } catch {
    throw new ApiError('invalid_json', 'The body is not JSON.');
  }
  const parsed = RatePush.safeParse(json);
  if (!parsed.success) throw new ApiError('invalid_request', 'The push is invalid.', { errors: fieldErrors(parsed.error) });
  const push = parsed.data;
  if (push.currency !== undefined && push.currency !== company.currency) {
    throw new ApiError('invalid_request', `Prices are in ${company.currency}.`, {
      errors: [{ path: 'currency', code: 'custom', message: `The company's currency is ${company.currency}.` }],
    });
  }
  const ranges: RateRangeValue[] = push.data.map((day) => ({
    starts_on: day.date,
    ends_on: addDays(day.date, 1),
    price: String(day.price),
    min_nights: day.min_stay ?? null,
    max_nights: day.max_stay ?? null,
    closed_to_arrival: !day.check_in,
    closed_to_departure: !day.check_out,
    closed: day.unbookable,
  }));
  const change = checkedRanges(ranges, company, now, pushPaths);
  const written = await writeRates(db, company, push.listing_id, change, { causedBy: `inbound:${tool.tool}`, pushId }, now);
  return {
    listing: written.listing,
    push_id: pushId,
    recorded: written.recorded,
    nights: written.recorded ? written.nights : 0,
    warnings: written.warnings,
  };
}

/**
 * Sets (or with null removes) the company's pricing tool: its name and the Standard Webhooks secret its pushes are
 * signed with, sealed bound to the company (lib/crypto-jwe.ts sealSecret) and never shown again; audited without it.
 */
export async function setPricingTool(
  db: Db,
  services: Pick<Services, 'config'>,
  company: Company,
  tool: { tool: string; secret: string } | null,
): Promise<{ tool: string | null; configured: boolean }> {
  if (tool === null) {
    const gone = db.deleteFrom('pricing_tools').where('company_id', '=', company.id).returning(['company_id', 'tool']);
    await sql`with gone as (${gone}), ${auditCte('audited', 'gone', { actor: 'admin', action: 'pricing_tool.removed', subject: 'tool' })}
      select 1`.execute(db);
    return { tool: null, configured: false };
  }
  const sealed = await sealSecret(keyringOf(services.config), tool.secret, company.id);
  const set = db
    .insertInto('pricing_tools')
    .values({ company_id: company.id, tool: tool.tool, secret_jwe: sealed })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ tool: tool.tool, secret_jwe: sealed }))
    .returning(['company_id', 'tool']);
  await sql`with set as (${set}), ${auditCte('audited', 'set', { actor: 'admin', action: 'pricing_tool.set', subject: 'tool' })}
    select 1`.execute(db);
  return { tool: tool.tool, configured: true };
}
