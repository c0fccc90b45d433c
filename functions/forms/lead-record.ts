import { sql } from 'kysely';
import { type Db, isUniqueViolation } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { prepared } from '../../lib/db/prepared';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { type MatchRule, type PersonValues, personCtes, personValues, sentDetails, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import { withoutCardNumbers } from '../../schema/common/card-numbers';
import type { LeadChannel, LeadReferral } from '../../schema/common/lead-shape';
import type { Company } from '../../schema/platform/db';

/**
 * The lead record: the one statement that writes a lead, whoever sends it (a visitor's form, a company's server, an
 * inbound channel), with its person, events and the source's message id.
 */

/** A lead's fields as every path records them: a form's (checked, page cleaned), or an inbound channel's. */
export type LeadFields = {
  name?: string;
  email?: string;
  phone?: string;
  language?: string;
  service?: string;
  form?: string;
  page?: string | null;
  /** The listing as sent: a slug in any language, a listing id, or a portal's reference (kept as sent if unknown). */
  listing?: string;
  message?: string;
  detailsJwe: string | null;
  consent: { version: string; address: string | null } | null;
};

/** Where a lead comes from, and so how its person is matched (lib/people.ts) and what it is shown with. */
export type LeadOrigin = {
  rule: MatchRule;
  channel: LeadChannel;
  source: string;
  /** The source's own id of the enquiry: a second delivery of it records nothing (the inbound channels). */
  sourceId: string | null;
  referral: LeadReferral | null;
  /** When the source says it happened (an inbound message's time); the request's `now` for a form. */
  occurredAt: Date;
  /**
   * A conversation (WhatsApp): a message from the phone of an open lead of this source whose last message is after
   * `since` becomes a `message` activity on that lead (its `body`), not a new lead.
   */
  conversation?: { since: Date };
};

/** What was recorded: the lead (new, or the one a conversation's message or a repeated delivery belongs to). */
export type RecordedLead = { id: string; reference: string; activity: string | null; repeated: boolean };

/** Why an item of a source's delivery was not kept (`inbound_messages.failure`): its problem code and field. */
export type ItemFailure = { code: string; path: string | null };

/**
 * The problem of a source's message id recorded as failed by an earlier delivery (functions/forms/inbound.ts): the
 * same item sent again fails again, with what it failed with, and nothing is recorded twice.
 */
function failedBefore(failure: ItemFailure): ApiError {
  return new ApiError('invalid_request', 'This message was not kept when it was first delivered.', {
    errors: [{ path: failure.path ?? '', code: failure.code, message: 'Not kept when first delivered.' }],
  });
}

/**
 * A lead's free texts and sent copies without card numbers (schema/common/card-numbers.ts), before anything is stored,
 * whoever sends them: the name (kept on the person too), the message, the service and form keys, the page, the listing
 * as sent, and an ad's referral headline and body. Emails and phone numbers are read by their own formats; ids and
 * links from a source (its message id, an ad's id and URL) are kept as sent.
 */
function withoutCards(fields: LeadFields): LeadFields {
  return {
    ...fields,
    name: withoutCardNumbers(fields.name),
    message: withoutCardNumbers(fields.message),
    service: withoutCardNumbers(fields.service),
    form: withoutCardNumbers(fields.form),
    page: withoutCardNumbers(fields.page),
    listing: withoutCardNumbers(fields.listing),
  };
}

function referralWithoutCards(referral: LeadReferral | null): LeadReferral | null {
  return referral && { ...referral, headline: withoutCardNumbers(referral.headline), body: withoutCardNumbers(referral.body) };
}

type LeadValues = PersonValues & {
  reference: string;
  service: string | null;
  form: string | null;
  page: string | null;
  listing: string | null;
  listing_id: string | null;
  message: string | null;
  language: string | null;
  details_jwe: string | null;
  consent_version: string | null;
  consent_at: string | null;
  consent_address: string | null;
  sent_name: string | null;
  sent_email: string | null;
  sent_phone: string | null;
  sent_listing: string | null;
  channel: LeadChannel;
  source: string;
  source_id: string | null;
  referral: string | null;
  occurred_at: string;
  since: string | null;
  activity_reference: string;
  lead_event: string;
  activity_event: string;
};

type RecordedRow = {
  id: string;
  reference: string;
  activity: string | null;
  repeated: boolean;
  /** The failure an earlier delivery of this message id was recorded with (functions/forms/inbound.ts). */
  failure: ItemFailure | null;
};

const uuidPattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A listing id as sent: with its dashes, or as the portal feeds publish it (functions/portals: the id's 32 hex digits
 * as `reference_number` / `Property_Ref_No`, which a portal's lead then names); null when it is not an id.
 */
function listingIdOf(sent: string | undefined): string | null {
  if (!sent || !uuidPattern.test(sent)) return null;
  const hex = sent.replaceAll('-', '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The statement of {@link recordLead}: nothing unless the source's id is new (`fresh`); the person (lib/people.ts
 * personCtes, by the origin's rule); with `conversation`, the open lead of the sender's phone (`thread`), which then
 * gets a `message` activity (with `activity.created` and the message id as the activity's external id) instead of a
 * new lead; otherwise the lead, its listing found by slug or id, and `lead.created`; the source's id recorded
 * (`inbound_messages`, whose primary key turns a concurrent second delivery into a unique violation: run again).
 * Without a source's id (`sourced` false: a form), `fresh`, `recorded` and the repeated delivery's read are left out:
 * they find and write nothing then, and each CTE of the statement costs the server its set-up on every run; without a
 * phone, the phone's holder (lib/people.ts). Each person is found by a unique index first (the thread's by its phone,
 * then its leads by person): a plan kept per connection from when the tables were small otherwise walked every open
 * WhatsApp lead of the company (364 of them, 1,838 buffers, as the bench's tables grew).
 */
function leadStatement(conversation: boolean, sourced: boolean, phone: boolean) {
  return prepared<LeadValues, RecordedRow>((p) => {
    const c = sql`${p.company_id}::uuid`;
    const seen = sql`select m.lead_id, m.activity_id, m.failure from inbound_messages m
      where m.company_id = ${c} and m.source = ${p.source}::text and m.message_id = ${p.source_id}::text`;
    const noThread = conversation ? sql`and not exists (select from thread)` : sql``;
    const isFresh = sourced ? sql`and exists (select from fresh)` : sql``;
    return sql`
      with ${sourced ? sql`fresh as (select where not exists (${seen})),` : sql``}
      ${
        conversation
          ? sql`thread as (
        select l.id, l.reference, l.contact_id from leads l
        where l.contact_id = (select h.id from contacts h
            where h.company_id = ${c} and h.phone_key = ${p.person_phone}::text and not h.erased) ${isFresh}
          and l.source = ${p.source}::text and not l.erased and l.status not in ('won', 'lost', 'spam')
          and exists (select from inbound_messages m where m.lead_id = l.id and m.occurred_at > ${p.since}::timestamptz)
        order by l.created_at desc
        limit 1
      ),`
          : sql``
      }
      ${personCtes(p, { gate: sourced ? 'fresh' : undefined, touch: conversation ? sql`not exists (select from thread)` : undefined, phone })},
      lead as (
        insert into leads (company_id, reference, contact_id, service, form, page, listing_id, message, language,
          details_jwe, consent_version, consent_at, consent_address, caused_by, sent_name, sent_email, sent_phone,
          sent_listing, channel, source, source_id, referral)
        select ${c}, ${p.reference}::text, person.id, ${p.service}::text, ${p.form}::text, ${p.page}::text,
          (select id from listings where company_id = ${c} and (slug_en = ${p.listing}::text or slug_ar = ${p.listing}::text
            or id = ${p.listing_id}::uuid) limit 1),
          ${p.message}::text, ${p.language}::text, ${p.details_jwe}::text, ${p.consent_version}::text,
          ${p.consent_at}::timestamptz, ${p.consent_address}::text, ${p.caused_by}::text, ${p.sent_name}::text,
          ${p.sent_email}::text, ${p.sent_phone}::text, ${p.sent_listing}::text, ${p.channel}::text, ${p.source}::text,
          ${p.source_id}::text, ${p.referral}::jsonb
        from person where true ${noThread}
        returning id, reference
      ),
      ${eventCtes('lead', p.lead_event, { companyId: p.company_id, type: 'lead.created', causedBy: p.caused_by }, 'lead', sql`jsonb_build_object('reference', happened.reference, 'person', (select reference from person))`)}${
        conversation
          ? sql`,
      activity as (
        insert into activities (company_id, reference, type, lead_id, contact_id, body, occurred_at)
        select ${c}, ${p.activity_reference}::text, 'message', t.id, t.contact_id, ${p.message}::text, ${p.occurred_at}::timestamptz
        from thread t
        returning id, reference
      ),
      activity_source as (
        insert into external_ids (company_id, record_type, source, external_id, record_id)
        select ${c}, 'activity', ${p.source}::text, ${p.source_id}::text, a.id::text from activity a
      ),
      ${eventCtes('activity', p.activity_event, { companyId: p.company_id, type: 'activity.created', causedBy: p.caused_by }, 'activity', sql`jsonb_build_object('reference', happened.reference, 'lead', (select reference from thread), 'person', (select reference from person))`)}`
          : sql``
      }${
        sourced
          ? sql`,
      recorded as (
        insert into inbound_messages (company_id, source, message_id, lead_id, activity_id, occurred_at)
        select ${c}, ${p.source}::text, ${p.source_id}::text,
          ${conversation ? sql`coalesce((select id from lead), (select id from thread)), (select id from activity)` : sql`(select id from lead), null`},
          ${p.occurred_at}::timestamptz
        from fresh where ${p.source_id}::text is not null
      )`
          : sql``
      }
      select id, reference, null::text as activity, false as repeated, null::jsonb as failure from lead
      ${conversation ? sql`union all select t.id, t.reference, (select reference from activity), false, null from thread t` : sql``}
      ${
        sourced
          ? sql`union all
      select l.id, l.reference, a.reference, true, m.failure from (${seen}) as m
        left join leads l on l.id = m.lead_id left join activities a on a.id = m.activity_id
      where l.id is not null or m.failure is not null`
          : sql``
      }`;
  });
}

/** The statements by `conversation`, `sourced` (a source's id sent) and `phone` (a phone sent), each made when first used. */
const statements = new Map<string, ReturnType<typeof leadStatement>>();
function statementOf(conversation: boolean, sourced: boolean, phone: boolean) {
  const key = `${conversation} ${sourced} ${phone}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = leadStatement(conversation, sourced, phone);
    statements.set(key, statement);
  }
  return statement;
}

/** The lead a source's message id was recorded with, if it was. */
async function repeatedDelivery(db: Db, companyId: string, source: string, messageId: string): Promise<RecordedLead | undefined> {
  const row = await db
    .selectFrom('inbound_messages as m')
    .innerJoin('leads as l', 'l.id', 'm.lead_id')
    .leftJoin('activities as a', 'a.id', 'm.activity_id')
    .select(['l.id', 'l.reference', 'a.reference as activity'])
    .where('m.company_id', '=', companyId)
    .where('m.source', '=', source)
    .where('m.message_id', '=', messageId)
    .executeTakeFirst();
  return row && { ...row, repeated: true };
}

/** How many times the statement runs when it meets a concurrent add of the same person or delivery. */
const attempts = 4;

/**
 * Records a lead (checked beforehand, its details encrypted) in one statement (one round trip, no BEGIN/COMMIT),
 * whoever sends it: a visitor's form, a company's server, an inbound channel. The person is matched or added by the
 * origin's rule (lib/people.ts), the lead written with what was sent, `lead.created` and each person's event with
 * their deliveries. A source's second delivery of the same id records nothing and answers the first lead
 * (`repeated`). Two writes of one new person, or of one delivery, at once meet on a unique index: the statement then
 * runs again and finds what the other one wrote.
 */
export async function recordLead(
  db: Db,
  company: Company,
  fields: LeadFields,
  origin: LeadOrigin,
  causedBy: CausedBy,
  now: Date,
): Promise<RecordedLead> {
  // The listing is looked up as sent (a company's own slug or id), and kept without card numbers like every text.
  const sentListing = fields.listing;
  fields = withoutCards(fields);
  const referral = referralWithoutCards(origin.referral);
  if (!fields.email?.trim() && !fields.phone?.trim() && origin.sourceId !== null) {
    // No way to name a person: only a repeat of a delivery recorded before can be answered (a later event of a lead).
    const repeat = await repeatedDelivery(db, company.id, origin.source, origin.sourceId);
    if (repeat) return repeat;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const person = personValues(company, wantedPerson(company, fields), causedBy, { rule: origin.rule, touch: 'always' });
      const statement = statementOf(!!origin.conversation, origin.sourceId !== null, person.person_phone !== null);
      const [row] = await statement(db, {
        ...person,
        ...sentDetails(fields),
        reference: newReference('L'),
        service: fields.service ?? null,
        form: fields.form ?? null,
        page: fields.page ?? null,
        listing: sentListing ?? null,
        listing_id: listingIdOf(sentListing),
        sent_listing: fields.listing ?? null,
        message: fields.message ?? null,
        language: fields.language ?? null,
        details_jwe: fields.detailsJwe,
        consent_version: fields.consent?.version ?? null,
        consent_at: fields.consent ? now.toISOString() : null,
        consent_address: fields.consent?.address ?? null,
        channel: origin.channel,
        source: origin.source,
        source_id: origin.sourceId,
        referral: referral && JSON.stringify(referral),
        occurred_at: origin.occurredAt.toISOString(),
        since: origin.conversation?.since.toISOString() ?? null,
        activity_reference: newReference('A'),
        lead_event: newEventId(),
        activity_event: newEventId(),
      });
      if (!row) throw new Error('the lead was not stored');
      if (row.failure) throw failedBefore(row.failure);
      const { failure, ...recorded } = row;
      return recorded;
    } catch (error) {
      if (attempt >= attempts || !isUniqueViolation(error)) throw error;
    }
  }
}
