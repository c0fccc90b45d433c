import { type RawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventInput, newEventId } from '../../lib/events';
import { type External, externalHolder, type LinkWrite, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { newContactRow, requireContactKey, type Wanted, wantedPerson } from '../../lib/people';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { ContactInputValue, ContactPatchValue } from '../../schema/crm/contacts';
import type { ContactRow, ContactsTable } from '../../schema/crm/db';
import { type ContactRecord, selectContacts } from './contacts.present';
import { stamp } from '../../lib/clock';

/**
 * POST and PATCH /contacts (lib/write.ts): one read of everything the decision needs (the person, the holder of the
 * client's id), then one statement with the change guarded by the version read, the link of the client's id, the event
 * and the audit of the answer. The answer is the row the statement returned, with what the read joined: no other query.
 * POST sends its read with the new person's insert (which happens only when the read finds no one): a new person is one
 * round trip, a match two.
 */

/** A read row: a person as shown (every column null when none), beside the holder of the client's id. */
type Read = { [K in keyof ContactRecord]: ContactRecord[K] | null } & {
  holder: string | null;
  linked_at: string | null;
  holder_live: boolean | null;
};

/** What a write reads: the person `where` finds, beside the holder of `external` and whether it is a live person. */
type ReadResult = { rows: ContactRecord[]; holder: string | null; linkedAt: string | null; holderLive: boolean };

/** The read's select: a row per person found (one row of nulls when none), each beside the holder of `external`. */
function readSelect(db: Db, companyId: string, external: External | undefined, where: RawBuilder<boolean>) {
  const held = external ? externalHolder(companyId, 'contact', external) : undefined;
  return sql<Read>`
    select k.holder, k.linked_at, h.live as holder_live, c.*
    from (select ${held?.holder ?? null}::text as holder, ${held?.linkedAt ?? null}::text as linked_at) k
    left join lateral (select not erased as live from contacts where id = k.holder::uuid) h on true
    left join lateral ${selectContacts(db, companyId).where(sql<boolean>`(${where})`)} as c on true
  `;
}

/** The person `where` finds, beside the holder of `external` and whether it is a live person: one statement. */
async function readWith(
  db: Db,
  companyId: string,
  external: External | undefined,
  where: RawBuilder<boolean>,
): Promise<ReadResult> {
  return readOf((await readSelect(db, companyId, external, where).execute(db)).rows);
}

/** The read's rows as the write decides on them. */
function readOf(rows: readonly Read[]): ReadResult {
  const first = rows[0];
  return {
    rows: rows.filter((row): row is Read & ContactRecord => row.id !== null),
    holder: first?.holder ?? null,
    linkedAt: first?.linked_at ?? null,
    holderLive: first?.holder_live ?? false,
  };
}

/**
 * The person's change in one statement: `set` (or only updated_at, for a new link: the answer changed) guarded by the
 * version read, the link, `contact.updated` and the answer's audit. `stale` when the person changed since the read.
 */
async function changeWritten(
  scope: WriteScope,
  current: ContactRecord,
  set: Updateable<ContactsTable>,
  link: LinkWrite,
  linkedAt: string | null,
): Promise<Written<ContactRecord> | Stale> {
  const { db, company } = scope;
  const change = db
    .updateTable('contacts')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', current.id)
    .where('version', '=', current.version)
    .returningAll();
  const event: EventInput = {
    companyId: company.id,
    type: 'contact.updated',
    causedBy: scope.causedBy,
    data: { reference: current.reference },
  };
  const { rows } = await writeStatement(
    [
      sql`changed as (${change})`,
      linkCte('linked', company.id, 'contact', link, 'changed'),
      eventCtes('updated', newEventId(), event, 'changed'),
      readAuditCte('answer_read', scope.answerRead, [current.reference]),
    ],
    sql`select * from changed`,
  ).execute(db);
  const row = rows[0] as ContactRow | undefined;
  if (!row) return stale;
  const answer = { ...current, ...row, external: linksAfter(current.external, link, linkedAt) };
  return { row: answer, version: row.version };
}

/** A person answered as read, nothing written but the audit of the answer. */
async function unchanged(scope: WriteScope, current: ContactRecord, created = false): Promise<Written<ContactRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [current.reference]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: current, created, version: current.version };
}

/** The empty fields of `match` that `wanted` fills; never a field with a value, nor an email or phone another person has. */
function fillsOf(match: ContactRecord, others: readonly ContactRecord[], wanted: Wanted): Updateable<ContactsTable> {
  const set: Updateable<ContactsTable> = {};
  if (match.name === null && wanted.name) set.name = wanted.name;
  if (match.language === null && wanted.language) set.language = wanted.language;
  if (match.email_key === null && wanted.key && !others.some((o) => o.email_key === wanted.key)) {
    set.email = wanted.email;
    set.email_key = wanted.key;
  }
  if (match.phone_key === null && wanted.phone && !others.some((o) => o.phone_key === wanted.phone)) {
    set.phone = wanted.phone;
    set.phone_key = wanted.phone;
  }
  const roles = [...new Set([...match.roles, ...wanted.roles])];
  if (roles.length > match.roles.length) set.roles = roles;
  return set;
}

/**
 * POST /contacts: adds a person, or matches one by external id, then email (case-insensitive), then phone (E.164). A
 * match gets its empty fields filled and the client's id linked (`contact.updated` when that changed something); a new
 * person records `contact.created`. An erased person is never matched; an id an erased person held moves to this one.
 * A concurrent add of the same person fails the statement on a unique index, and the write runs again and finds it.
 */
export async function addContact(scope: WriteScope, input: ContactInputValue): Promise<Written<ContactRecord> | Stale> {
  const { db, company } = scope;
  const wanted = wantedPerson(company, input);
  if (!input.external) requireContactKey(wanted);
  const found = sql<boolean>`contacts.id = k.holder::uuid or (not contacts.erased
      and (contacts.email_key = ${wanted.key ?? null}::text or contacts.phone_key = ${wanted.phone ?? null}::text))`;
  const tried = await addedUnlessFound(scope, input, newContactRow(company.id, wanted), found);
  if ('row' in tried) return tried;
  const read = tried.read;
  const live = read.rows.filter((row) => !row.erased);
  const match =
    live.find((row) => row.id === read.holder) ??
    live.find((row) => wanted.key !== undefined && row.email_key === wanted.key) ??
    live.find((row) => wanted.phone !== undefined && row.phone_key === wanted.phone);

  if (match) {
    const set = fillsOf(
      match,
      read.rows.filter((row) => row.id !== match.id),
      wanted,
    );
    const link = linkFor('contact', input.external, read.holder, match.id, !read.holderLive);
    if (Object.keys(set).length === 0 && link.kind === 'none') return unchanged(scope, match);
    return changeWritten(scope, match, set, link, read.linkedAt);
  }

  const row = newContactRow(company.id, wanted);
  const link = linkFor('contact', input.external, read.holder, undefined, !read.holderLive);
  const { rows } = await writeStatement(
    [sql`added as (${db.insertInto('contacts').values(row).returningAll()})`, ...addedCtes(scope, row, link)],
    sql`select * from added`,
  ).execute(db);
  const added = rows[0] as ContactRow | undefined;
  if (!added) throw new Error('the new person was not stored');
  return createdAnswer(added, link, read.linkedAt);
}

/** What a new person's statement writes beside it (CTE `added`): the link of the client's id, the event, the audit. */
function addedCtes(scope: WriteScope, row: ReturnType<typeof newContactRow>, link: LinkWrite) {
  const event: EventInput = {
    companyId: scope.company.id,
    type: 'contact.created',
    causedBy: scope.causedBy,
    data: { reference: row.reference },
  };
  return [
    linkCte('linked', scope.company.id, 'contact', link, 'added'),
    eventCtes('created', newEventId(), event, 'added'),
    readAuditCte('answer_read', scope.answerRead, [row.reference], 'added'),
  ];
}

function createdAnswer(added: ContactRow, link: LinkWrite, linkedAt: string | null): Written<ContactRecord> {
  const answer = { ...added, lead_references: [], possible_duplicates: [], external: linksAfter([], link, linkedAt) };
  return { row: answer, created: true, version: added.version };
}

/**
 * POST /contacts in one round trip when the person is new: the read (`found`, as {@link readWith} reads it) and, in the
 * same statement, the new person's insert, which happens only when the read finds no one (no person by email or phone,
 * no holder of the client's id). A person added meanwhile by another request fails the statement on a unique index,
 * and lib/write.ts `writeOnce` runs the write again, which then finds it. Either the new person's answer, or what the
 * read found, for the write to decide on (a second round trip).
 */
async function addedUnlessFound(
  scope: WriteScope,
  input: ContactInputValue,
  row: ReturnType<typeof newContactRow>,
  found: RawBuilder<boolean>,
): Promise<Written<ContactRecord> | { read: ReadResult }> {
  const { db, company } = scope;
  const link: LinkWrite = input.external ? { kind: 'link', external: input.external } : { kind: 'none' };
  const columns = sql.join(Object.keys(row).map((column) => sql.id(column)));
  const insert = sql`insert into contacts (${columns})
    select ${columns} from jsonb_populate_record(null::contacts, ${JSON.stringify(row)}::jsonb)
    where not exists (select from found where found.id is not null or found.holder is not null)
    returning *`;
  // The new person in the read's shape (nothing joined yet), marked; the read's rows beside it otherwise.
  const { rows } = await writeStatement(
    [
      sql`found as (${readSelect(db, company.id, input.external, found)})`,
      sql`added as (${insert})`,
      ...addedCtes(scope, row, link),
    ],
    sql`select false as added_now, found.* from found
      union all select true, null, null, null, a.*, '{}'::text[], '[]'::jsonb, '[]'::json from added a`,
  ).execute(db);
  const all = rows as Array<Read & { added_now: boolean }>;
  const added = all.find((r) => r.added_now);
  if (added) {
    const { added_now, holder, linked_at, holder_live, ...person } = added;
    return createdAnswer(person as unknown as ContactRow, link, null);
  }
  return { read: readOf(all) };
}

/** PATCH /contacts/{reference}: name, language, TRN (null clears them), or the client's id. An erased person cannot change (409). */
export async function changeContact(
  scope: WriteScope,
  reference: string,
  input: ContactPatchValue,
): Promise<Written<ContactRecord> | Stale> {
  const read = await readWith(scope.db, scope.company.id, input.external, sql<boolean>`contacts.reference = ${reference}`);
  const current = read.rows[0];
  if (!current) throw notFound(`The contact ${reference}`);
  checkIfMatch(scope.ifMatch, current.version);
  if (current.erased) throw new ApiError('conflict', `The contact ${reference} is erased; it cannot be changed.`);
  const set: Updateable<ContactsTable> = {};
  if (input.name !== undefined && input.name !== current.name) set.name = input.name;
  if (input.language !== undefined && input.language !== current.language) set.language = input.language;
  if (input.trn !== undefined && input.trn !== current.trn) set.trn = input.trn;
  const link = linkFor('contact', input.external, read.holder, current.id, !read.holderLive);
  if (Object.keys(set).length === 0 && link.kind === 'none') return unchanged(scope, current);
  return changeWritten(scope, current, set, link, read.linkedAt);
}
