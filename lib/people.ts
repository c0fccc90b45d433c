import { sql, type Updateable } from 'kysely';
import type { Trx } from './db/index';
import { ApiError } from './errors';
import { type CausedBy, recordEvent, writeWithEvent } from './events';
import { newReference } from './references';
import type { ContactRow, ContactsTable } from '../schema/crm/db';
import type { Company } from '../schema/platform/db';
import { emailKey, normalisePhone, phoneCountryOf } from './people-keys';
import { type External, linkExternal, linkNewRecord, recordIdByExternal, relinkExternal } from './external-ids';

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
      await relinkExternal(trx, companyId, 'contact', contactId, external);
      return true;
    }
  }
  if (!isNew) return linkExternal(trx, companyId, 'contact', contactId, external);
  await linkNewRecord(trx, companyId, 'contact', contactId, external);
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
  if (!wanted.key && !wanted.phone && !input.external) {
    throw new ApiError('invalid_request', 'A person needs an email, a phone or an external id.', {
      errors: [{ path: 'email', code: 'custom', message: 'Send at least one of email, phone or external.' }],
    });
  }
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
    .set({ ...set, updated_at: sql`clock_timestamp()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
