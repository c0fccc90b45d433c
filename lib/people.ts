import { type RawBuilder, sql, type Updateable } from 'kysely';
import type { Trx } from './db/index';
import type { Slots } from './db/prepared';
import { ApiError } from './errors';
import { type CausedBy, eventCtes, newEventId, recordEvent, writeWithEvent } from './events';
import { newReference } from './references';
import type { ContactRow, ContactsTable } from '../schema/crm/db';
import type { Company } from '../schema/platform/db';
import { emailKey, normalisePhone, phoneCountryOf } from './people-keys';
import { type External, linkExternal, recordIdByExternal, writeLink } from './external-ids';
import { stamp } from './clock';

/** What a write knows of a person: the API's POST /contacts, or an enquiry form. */
export type PersonInput = {
  name?: string;
  email?: string;
  phone?: string;
  language?: string;
  roles?: string[];
  external?: External;
};

/** A person's fields as they are matched and stored: trimmed, the email's key lower-cased, the phone in E.164. */
export type Wanted = { name?: string; email?: string; key?: string; phone?: string; language?: string; roles: string[] };

/** The person `input` describes, normalised (the phone with the company's default country). */
export function wantedPerson(company: Company, input: PersonInput): Wanted {
  const email = input.email?.trim() || undefined;
  const phoneText = input.phone?.trim() || undefined;
  return {
    name: input.name?.trim() || undefined,
    email,
    key: email && emailKey(email),
    phone: phoneText && normalisePhone(phoneText, phoneCountryOf(company)),
    language: input.language,
    roles: input.roles ?? [],
  };
}

/** Refuses (400) a person that could never be matched again: neither an email nor a phone (nor an external id). */
export function requireContactKey(wanted: Wanted): void {
  if (!wanted.key && !wanted.phone) {
    throw new ApiError('invalid_request', 'A person needs an email, a phone or an external id.', {
      errors: [{ path: 'email', code: 'custom', message: 'Send at least one of email, phone or external.' }],
    });
  }
}

/** The row of a new person (its reference new). */
export function newContactRow(companyId: string, wanted: Wanted) {
  return {
    company_id: companyId,
    reference: newReference('P'),
    name: wanted.name ?? null,
    email: wanted.email ?? null,
    email_key: wanted.key ?? null,
    phone: wanted.phone ?? null,
    phone_key: wanted.phone ?? null,
    language: wanted.language ?? null,
    roles: [...new Set(wanted.roles)],
  };
}

/** A person's row, locked until the transaction ends, so concurrent fills never overwrite each other. */
function lockedContact(trx: Trx, companyId: string) {
  return trx.selectFrom('contacts').selectAll().where('company_id', '=', companyId).where('erased', '=', false).forUpdate();
}

/** The person to fill: by external id, then email, then phone. An erased person is never matched. */
async function findMatch(trx: Trx, companyId: string, wanted: Wanted, external?: External) {
  if (external) {
    const id = await recordIdByExternal(trx, companyId, 'contact', external);
    const held = id === undefined ? undefined : await lockedContact(trx, companyId).where('id', '=', id).executeTakeFirst();
    if (held) return held;
  }
  if (wanted.key) {
    const byEmail = await lockedContact(trx, companyId).where('email_key', '=', wanted.key).executeTakeFirst();
    if (byEmail) return byEmail;
  }
  if (wanted.phone) return lockedContact(trx, companyId).where('phone_key', '=', wanted.phone).executeTakeFirst();
  return undefined;
}

/**
 * Links the client's id to a person. An id held by an erased person moves to this one (the client keeps
 * one record per id; the erased person stays erased). Held by another live person it is refused (409),
 * unless this person is new: then the holder is a concurrent add that committed since the lookup, and the
 * insert's unique violation makes the transaction run again and find it.
 */
export async function linkToContact(trx: Trx, companyId: string, contactId: string, external: External, isNew: boolean) {
  const holder = await recordIdByExternal(trx, companyId, 'contact', external);
  if (holder !== undefined && holder !== contactId) {
    const live = await trx
      .selectFrom('contacts')
      .select('id')
      .where('id', '=', holder)
      .where('erased', '=', false)
      .executeTakeFirst();
    if (!live) {
      await writeLink(trx, companyId, 'contact', contactId, { kind: 'relink', external, from: holder });
      return true;
    }
  }
  if (!isNew) return linkExternal(trx, companyId, 'contact', contactId, external);
  await writeLink(trx, companyId, 'contact', contactId, { kind: 'link', external });
  return true;
}

async function heldByAnother(trx: Trx, match: ContactRow, column: 'email_key' | 'phone_key', value: string) {
  const row = await trx
    .selectFrom('contacts')
    .select('id')
    .where('company_id', '=', match.company_id)
    .where(column, '=', value)
    .where('id', '<>', match.id)
    .executeTakeFirst();
  return row !== undefined;
}

/** The empty fields of `match` that `wanted` fills; never a field that has a value. Roles are added to. */
async function fillsOf(trx: Trx, match: ContactRow, wanted: Wanted): Promise<Updateable<ContactsTable>> {
  const set: Updateable<ContactsTable> = {};
  if (match.name === null && wanted.name) set.name = wanted.name;
  if (match.language === null && wanted.language) set.language = wanted.language;
  // An email or phone that is another person's stays theirs: the two are not merged.
  if (match.email_key === null && wanted.key && !(await heldByAnother(trx, match, 'email_key', wanted.key))) {
    set.email = wanted.email;
    set.email_key = wanted.key;
  }
  if (match.phone_key === null && wanted.phone && !(await heldByAnother(trx, match, 'phone_key', wanted.phone))) {
    set.phone = wanted.phone;
    set.phone_key = wanted.phone;
  }
  const roles = [...new Set([...match.roles, ...wanted.roles])];
  if (roles.length > match.roles.length) set.roles = roles;
  return set;
}

/**
 * Adds a person or matches one by external id, then email (case-insensitive), then phone (E.164). A match
 * gets its empty fields filled and the external id linked; `contact.updated` is recorded only when that
 * changed something, `contact.created` for a new person. Run it in {@link transactionRetryingConflict}: a
 * concurrent add of the same person fails on a unique index and the retry then finds it.
 */
export async function matchOrCreateContact(
  trx: Trx,
  company: Company,
  input: PersonInput,
  causedBy: CausedBy,
): Promise<{ contact: ContactRow; created: boolean; updated: boolean }> {
  const wanted = wantedPerson(company, input);
  if (!input.external) requireContactKey(wanted);
  const match = await findMatch(trx, company.id, wanted, input.external);
  const link = (contactId: string, isNew: boolean) =>
    input.external ? linkToContact(trx, company.id, contactId, input.external, isNew) : Promise.resolve(false);

  if (!match) {
    const row = newContactRow(company.id, wanted);
    // The insert and its `contact.created` in one statement.
    const [contact] = await writeWithEvent<ContactRow>(trx, trx.insertInto('contacts').values(row).returningAll(), {
      companyId: company.id,
      type: 'contact.created',
      causedBy,
      data: { reference: row.reference },
    });
    if (!contact) throw new Error('the new person was not stored');
    await link(contact.id, true);
    return { contact, created: true, updated: false };
  }

  const set = await fillsOf(trx, match, wanted);
  const linked = await link(match.id, false);
  if (Object.keys(set).length === 0 && !linked) return { contact: match, created: false, updated: false };
  const contact = await touchContact(trx, match.id, set);
  await recordEvent(trx, { companyId: company.id, type: 'contact.updated', causedBy, data: { reference: contact.reference } });
  return { contact, created: false, updated: true };
}

/** Writes `set` (or only bumps updated_at, e.g. for a new external id: the record's answer changed). */
export function touchContact(trx: Trx, id: string, set: Updateable<ContactsTable>): Promise<ContactRow> {
  return trx
    .updateTable('contacts')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Who a write trusts to name a person, and so how its person is matched (docs/api-reference.md, "Matching people"):
 *
 * - `server`: a company's own server (a server key): the person with the email, else the one with the phone; their
 *   empty fields filled, never one that has a value (the spec's rule for POST /contacts and a server's POST /leads).
 * - `visitor`: anyone (a publishable key's form, an inbound channel's sender): the person with the email; the person
 *   with the phone only when no email was sent; otherwise a new person. Nothing of a matched person is ever filled,
 *   and a new person whose phone another person holds keeps it shown but not as a matching key, the two marked as
 *   possible duplicates for staff. What was sent is kept on the lead or booking (`sent`), so nothing is lost.
 */
export type MatchRule = 'server' | 'visitor';

/** The values of {@link personCtes}'s slots: the person as wanted, its reference if new, the ids of its events. */
export type PersonValues = {
  company_id: string;
  caused_by: CausedBy;
  person_reference: string;
  person_name: string | null;
  person_email: string | null;
  person_email_key: string | null;
  person_phone: string | null;
  person_language: string | null;
  person_roles: string[];
  person_visitor: boolean;
  /** Always touch a matched person (an enquiry: their leads changed), or only when something changed (a booking). */
  person_touch: boolean;
  person_created_event: string;
  person_updated_event: string;
  person_holder_event: string;
};

/** The values {@link personCtes} matches or adds `wanted` with (400 without an email or a phone). */
export function personValues(
  company: Company,
  wanted: Wanted,
  causedBy: CausedBy,
  how: { rule: MatchRule; touch: 'always' | 'on_change' },
): PersonValues {
  requireContactKey(wanted);
  const row = newContactRow(company.id, wanted);
  return {
    company_id: company.id,
    caused_by: causedBy,
    person_reference: row.reference,
    person_name: row.name,
    person_email: row.email,
    person_email_key: row.email_key,
    person_phone: row.phone,
    person_language: row.language,
    person_roles: row.roles,
    person_visitor: how.rule === 'visitor',
    person_touch: how.touch === 'always',
    person_created_event: newEventId(),
    person_updated_event: newEventId(),
    person_holder_event: newEventId(),
  };
}

/** What a sender gave, kept as sent on the lead or booking (trimmed; empty as null). */
export function sentDetails(input: PersonInput): {
  sent_name: string | null;
  sent_email: string | null;
  sent_phone: string | null;
} {
  return {
    sent_name: input.name?.trim() || null,
    sent_email: input.email?.trim() || null,
    sent_phone: input.phone?.trim() || null,
  };
}

/**
 * Matching a person inside one statement (a prepared one: lib/db/prepared.ts, `p` its slots) by the {@link MatchRule}
 * of `person_visitor`, as {@link matchOrCreateContact} does for a server without an external id. The CTEs:
 *
 * - `person_match`: the matched live person (locked `for update`), with what a server's fill would change;
 * - `person_holder` (visitor): the live person holding the sent phone when it is not the match (and the pair is not
 *   marked yet): a new person then keeps the phone shown but not as `phone_key`, and the pair is marked;
 * - `person_added` (with `contact.created`): the new person, when none matched;
 * - `person_filled` (with `contact.updated`): the match, touched with `person_touch` (updated_at bumped, as an enquiry
 *   does: the person's answer lists one more lead), when a server's fill changed something, or when a mark is added;
 * - `person_marked`, `person_holder_touched` (with `contact.updated`): the pair's marks, both ways, and the holder;
 * - `person`: `id` and `reference` of whichever it is.
 *
 * `gate` names an earlier CTE of the statement: nothing is matched or written unless it has a row (a booking's
 * calendar check, a delivery not seen before); `touch`, SQL in place of the `person_touch` slot; `phone: false`, a
 * statement only ever run without a phone (`person_phone` null): the holder's CTEs, which then find and write
 * nothing, are left out (each CTE costs the server its set-up on every run). A concurrent add of the same person (or
 * a concurrent fill of the same email or phone) fails the statement on the contacts' unique indexes: run it again (a
 * new snapshot then sees that person).
 */
export function personCtes(
  p: Slots<PersonValues>,
  options: { gate?: string; touch?: RawBuilder<unknown>; phone?: boolean } = {},
): RawBuilder<unknown> {
  const holder = options.phone !== false;
  const c = sql`${p.company_id}::uuid`;
  const key = sql`${p.person_email_key}::text`;
  const phone = sql`${p.person_phone}::text`;
  const server = sql`not ${p.person_visitor}::boolean`;
  const gated = options.gate ? sql`and exists (select from ${sql.raw(options.gate)})` : sql``;
  const heldBy = (column: 'email_key' | 'phone_key', value: RawBuilder<unknown>) =>
    sql`${server} and m.${sql.raw(column)} is null and ${value} is not null and not exists (
      select from contacts o where o.company_id = ${c} and o.${sql.raw(column)} = ${value} and o.id <> m.id)`;
  const keep = (column: string, fill: RawBuilder<unknown>) =>
    sql`${sql.raw(column)} = case when ${server} then ${fill} else f.${sql.raw(column)} end`;
  const event = { companyId: p.company_id, causedBy: p.caused_by };
  const reference = sql`jsonb_build_object('reference', happened.reference)`;
  return sql`
    person_match as (
      select m.id, m.reference,
        ${heldBy('email_key', key)} as fill_email,
        ${heldBy('phone_key', phone)} as fill_phone,
        ${server} and ((m.name is null and ${p.person_name}::text is not null)
          or (m.language is null and ${p.person_language}::text is not null)
          or not (${p.person_roles}::text[] <@ m.roles)) as fill_other
      from contacts m
      where m.id = coalesce(
          (select e.id from contacts e where e.company_id = ${c} and e.email_key = ${key} and not e.erased),
          (select e.id from contacts e where e.company_id = ${c} and e.phone_key = ${phone} and not e.erased
            and (${server} or ${key} is null)))
        and not m.erased ${gated}
        and (m.email_key = ${key} or (m.phone_key = ${phone} and (${server} or ${key} is null)))
      for update of m
    ),
    ${
      holder
        ? sql`person_holder as (
      select h.id, h.reference from contacts h
      where ${p.person_visitor}::boolean and h.company_id = ${c} and not h.erased and h.phone_key = ${phone} ${gated}
        and h.id is distinct from (select id from person_match)
        and not exists (select from contact_duplicates d where d.contact_id = h.id and d.duplicate_id = (select id from person_match))
    ),`
        : sql``
    }
    person_added as (
      insert into contacts (company_id, reference, name, email, email_key, phone, phone_key, language, roles)
      select ${c}, ${p.person_reference}::text, ${p.person_name}::text, ${p.person_email}::text, ${key}, ${phone},
        ${holder ? sql`case when exists (select from person_holder) then null else ${phone} end` : phone}, ${p.person_language}::text,
        ${p.person_roles}::text[]
      where not exists (select from person_match) ${gated}
      returning id, reference
    ),
    ${eventCtes('person_added', p.person_created_event, { ...event, type: 'contact.created' }, 'person_added', reference)},
    person_filled as (
      update contacts f set
        ${keep('name', sql`coalesce(f.name, ${p.person_name}::text)`)},
        ${keep('language', sql`coalesce(f.language, ${p.person_language}::text)`)},
        email = case when m.fill_email then ${p.person_email}::text else f.email end,
        email_key = case when m.fill_email then ${key} else f.email_key end,
        phone = case when m.fill_phone then ${phone} else f.phone end,
        phone_key = case when m.fill_phone then ${phone} else f.phone_key end,
        ${keep('roles', sql`f.roles || array(select r from unnest(${p.person_roles}::text[]) as r where r <> all (f.roles))`)},
        updated_at = ${stamp}
      from person_match m
      where f.id = m.id
        and (${options.touch ?? sql`${p.person_touch}::boolean`} or m.fill_email or m.fill_phone or m.fill_other ${holder ? sql`or exists (select from person_holder)` : sql``})
      returning f.id, f.reference
    ),
    ${eventCtes('person_filled', p.person_updated_event, { ...event, type: 'contact.updated' }, 'person_filled', reference)},
    person as (
      select id, reference from person_added
      union all
      select id, reference from person_match
    )${
      holder
        ? sql`,
    person_marked as (
      insert into contact_duplicates (company_id, contact_id, duplicate_id, reason)
      select ${c}, pair.a, pair.b, 'same_phone'
      from person, person_holder h, lateral (values (person.id, h.id), (h.id, person.id)) as pair (a, b)
      on conflict do nothing
      returning contact_id
    ),
    person_holder_touched as (
      update contacts t set updated_at = ${stamp}
      from person_holder h
      where t.id = h.id
      returning t.id, t.reference
    ),
    ${eventCtes('person_holder_touched', p.person_holder_event, { ...event, type: 'contact.updated' }, 'person_holder_touched', reference)}`
        : sql``
    }`;
}
