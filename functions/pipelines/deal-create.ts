import { type RawBuilder, sql } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Trx } from '../../lib/db/index';
import { runNamed } from '../../lib/db/prepared';
import { externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { amountIn } from '../../lib/money';
import { fieldProblem, unknownReference } from '../../lib/named-records';
import { matchOrCreateContact, type PersonValues, personCtes, personValues, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { DealRow } from '../../schema/pipelines/db';
import type { DealInputValue } from '../../schema/pipelines/deals';
import { type DealRecord, selectDeals } from './deals.present';
import { checkParties, dealUnchanged, fieldValues, type NamedRead, namedColumns } from './deals';

/**
 * POST /deals (functions/pipelines/deals.ts holds the deal's other writes and the checks they share with it): a deal
 * added in one statement, its read the statement's first CTE.
 */

/** What a create reads beside the deal sent before: the pipeline and stage, the enquiry, the person named. */
type CreateRead = NamedRead & {
  existing: string | null;
  new_pipeline_id: string | null;
  new_pipeline_key: string | null;
  new_pipeline_purpose: 'sales' | 'leasing' | null;
  new_stage_id: string | null;
  new_stage_key: string | null;
  new_stage_kind: 'open' | 'won' | 'lost' | null;
  new_stage_probability: number | null;
  enquiry_id: string | null;
  enquiry_contact_id: string | null;
  enquiry_person: string | null;
  enquiry_listing_id: string | null;
  enquiry_home: string | null;
  enquiry_department: string | null;
  enquiry_assignee: string | null;
  enquiry_erased: boolean | null;
  person_id: string | null;
  person_erased: boolean | null;
};

/** What the create's read leaves out when the body names no enquiry or person's reference. */
const absent = {
  enquiry_id: null,
  enquiry_contact_id: null,
  enquiry_person: null,
  enquiry_listing_id: null,
  enquiry_home: null,
  enquiry_department: null,
  enquiry_assignee: null,
  enquiry_erased: null,
  person_id: null,
  person_erased: null,
};

/** The create's refusals of the pipeline, stage and enquiry or person named, on what the read found. */
function checkCreate(read: CreateRead, input: DealInputValue) {
  if (read.new_pipeline_id === null) {
    throw input.pipeline === undefined
      ? fieldProblem('pipeline', 'no_pipeline', 'The company has no pipeline yet: it adds them in its admin.')
      : fieldProblem('pipeline', 'unknown_pipeline', `${input.pipeline} is not a pipeline of this company.`);
  }
  if (read.new_stage_id === null) {
    throw input.stage === undefined
      ? fieldProblem('stage', 'no_open_stage', `The pipeline ${read.new_pipeline_key} has no open stage.`)
      : fieldProblem('stage', 'unknown_stage', `${input.stage} is not a stage of the pipeline ${read.new_pipeline_key}.`);
  }
  if (read.new_stage_kind !== 'open') {
    throw fieldProblem('stage', 'stage_not_open', `A deal starts in an open stage; move it to ${input.stage} afterwards.`);
  }
  if (input.enquiry !== undefined) {
    if (read.enquiry_id === null) throw unknownReference('enquiry', `${input.enquiry} is not a lead of this company.`);
    if (read.enquiry_erased) throw fieldProblem('enquiry', 'lead_erased', `The lead ${input.enquiry} is erased.`);
    if (read.enquiry_contact_id === null) {
      throw fieldProblem('enquiry', 'enquiry_without_person', `The lead ${input.enquiry} names no person.`);
    }
  }
  if (typeof input.person === 'string') {
    if (read.person_id === null) throw unknownReference('person', `${input.person} is not a contact of this company.`);
    if (read.person_erased) throw fieldProblem('person', 'contact_erased', `The contact ${input.person} is erased.`);
  }
}

/**
 * The slots of lib/people.ts personCtes from values (the statement is built once per write, not prepared). A null or
 * a flag is a constant of the text, not a parameter, as the fields a body leaves out (namedColumns): PostgreSQL would
 * fold a lookup by a null phone away in each run's own plan and plan the statement anew on every run.
 */
const slotsOf = (values: PersonValues) =>
  Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      value === null || typeof value === 'boolean' ? sql.lit(value) : sql.val(value),
    ]),
  ) as never;

/** The create's read, as the statement's first CTE `k` (or alone): the deal sent before, the pipeline and stage, the
 * enquiry or person named, and the records the optional fields name. What the body does not name is left out of the
 * text (namedColumns), so PostgreSQL keeps the statement's generic plan. */
function createRead(companyId: string, input: DealInputValue): RawBuilder<CreateRead> {
  const existing = input.external ? externalHolder(companyId, 'deal', input.external).holder : sql`null::text`;
  const c = sql`${companyId}::uuid`;
  const enquiry = input.enquiry !== undefined;
  const person = typeof input.person === 'string' ? input.person : null;
  return sql<CreateRead>`
    select k.existing, pl.id as new_pipeline_id, pl.key as new_pipeline_key, pl.purpose as new_pipeline_purpose,
      st.id as new_stage_id, st.key as new_stage_key, st.kind as new_stage_kind, st.probability as new_stage_probability,
      ${
        enquiry
          ? sql`enquiry.id as enquiry_id, enquiry.contact_id as enquiry_contact_id, enquiry_person.reference as enquiry_person,
      enquiry.listing_id as enquiry_listing_id, enquiry_home.slug_en as enquiry_home,
      enquiry.department_key as enquiry_department, enquiry.assignee_id as enquiry_assignee, enquiry.erased as enquiry_erased,`
          : sql``
      }
      ${person !== null ? sql`named_person.id as person_id, named_person.erased as person_erased,` : sql``}
      ${sql.join(namedColumns(companyId, input))}
    from (select ${existing} as existing) k
    left join lateral (select id, key, purpose from pipelines where company_id = ${c}
      ${input.pipeline !== undefined ? sql`and key = ${input.pipeline}::text` : sql``}
      order by position, created_at limit 1) pl on true
    left join lateral (select id, key, kind, probability from pipeline_stages where pipeline_id = pl.id
      and ${input.stage !== undefined ? sql`key = ${input.stage}::text` : sql`kind = 'open'`}
      order by position, created_at limit 1) st on true
    ${
      enquiry
        ? sql`left join leads enquiry on enquiry.company_id = ${c} and enquiry.reference = ${input.enquiry}::text
    left join contacts enquiry_person on enquiry_person.id = enquiry.contact_id
    left join listings enquiry_home on enquiry_home.id = enquiry.listing_id`
        : sql``
    }
    ${
      person !== null
        ? sql`left join contacts named_person on named_person.company_id = ${c} and named_person.reference = ${person}::text`
        : sql``
    }`;
}

/**
 * The create's checks as SQL over `k`, each the twin of a refusal of {@link checkCreate}, {@link fieldValues} and
 * {@link checkParties} (`refused`: an amount the currency cannot hold), so nothing is written where one is made.
 */
function createGate(input: DealInputValue, refused: boolean): RawBuilder<boolean> {
  const checks = [sql`k.existing is null`, sql`k.new_stage_kind = 'open'`, sql.lit(!refused)];
  const contact =
    input.enquiry !== undefined ? sql`k.enquiry_contact_id` : typeof input.person === 'string' ? sql`k.person_id` : undefined;
  if (input.enquiry !== undefined)
    checks.push(sql`k.enquiry_id is not null and not k.enquiry_erased and k.enquiry_contact_id is not null`);
  if (typeof input.person === 'string') checks.push(sql`k.person_id is not null and not k.person_erased`);
  if (typeof input.home === 'string') checks.push(sql`k.named_home_id is not null`);
  if (typeof input.owner === 'string') {
    checks.push(sql`k.named_owner_id is not null and not k.named_owner_erased`);
    if (contact) checks.push(sql`k.named_owner_id is distinct from ${contact}`);
  }
  if (typeof input.handler === 'string') checks.push(sql`k.handler_known`);
  if (typeof input.department === 'string') checks.push(sql`k.department_known`);
  return sql.join(checks, sql` and `) as RawBuilder<boolean>;
}

/** The columns a create sets beyond its pipeline, stage and person, as SQL over `k` and the body's values. */
function createColumns(input: DealInputValue, amounts: { value?: string | null; commission?: string | null }) {
  const set = new Map<string, RawBuilder<unknown>>();
  if (input.enquiry !== undefined) {
    set.set('lead_id', sql`k.enquiry_id`);
    set.set('listing_id', sql`k.enquiry_listing_id`);
    set.set('department_key', sql`k.enquiry_department`);
    set.set('handler_id', sql`k.enquiry_assignee`);
  }
  if (input.title !== undefined) set.set('title', sql`${input.title}`);
  if (input.home !== undefined) set.set('listing_id', sql`k.named_home_id`);
  if (input.owner !== undefined) set.set('owner_id', sql`k.named_owner_id`);
  if (input.handler !== undefined) set.set('handler_id', sql`${input.handler}::text`);
  if (input.department !== undefined) set.set('department_key', sql`${input.department}::text`);
  if (input.value !== undefined) set.set('value', sql`${amounts.value ?? null}::numeric`);
  if (input.commission !== undefined) set.set('commission', sql`${amounts.commission ?? null}::numeric`);
  if (input.probability !== undefined) set.set('probability', sql`${input.probability}::int`);
  if (input.expected_close !== undefined) set.set('expected_close', sql`${input.expected_close}::date`);
  return set;
}

/**
 * Adds a deal in an open stage, from an enquiry (its person, and its home, department and assignee unless sent), a
 * person's reference, or their details (matched or added as POST /contacts does: lib/people.ts), in one statement: the
 * create's read ({@link createRead}, the CTE `k`), the person matched or added and the deal inserted, both gated on
 * what `k` found ({@link createGate}), the link of the client's id and the audit of the answer; the refusals are then
 * made from the read, in their order, and nothing was written for them. A person with their own external id is
 * matched and linked as POST /contacts does (lib/people.ts matchOrCreateContact), in a transaction after the read alone
 * and before the statement. Sent again with the same external id: the first deal (read on its own, a trip more on a
 * retry only), `created: false`, nothing written but the audit of the answer. Announces nothing (the spec names no
 * deal creation event; a mirror finds new deals with `updated_since`). A concurrent create with the same external id
 * (or the same new person) fails the statement on a unique index, and the next read finds the first.
 */
export async function addDeal(scope: WriteScope, input: DealInputValue): Promise<Written<DealRecord> | Stale> {
  const { db, company } = scope;
  const read = createRead(company.id, input);
  // An amount the currency cannot hold is refused after the read's refusals (fieldValues), as before.
  const amounts: { value?: string | null; commission?: string | null } = {};
  let refused = false;
  try {
    if (input.value !== undefined) amounts.value = input.value && amountIn(input.value, company.currency, 'value');
    if (input.commission !== undefined) {
      amounts.commission = input.commission && amountIn(input.commission, company.currency, 'commission');
    }
  } catch {
    refused = true;
  }
  const details = typeof input.person === 'object' ? input.person : undefined;
  let contactId: RawBuilder<unknown> =
    input.enquiry !== undefined ? sql`k.enquiry_contact_id` : typeof input.person === 'string' ? sql`k.person_id` : sql`null`;
  let linkedPerson: string | undefined;
  if (details?.external) {
    // A person with their own external id: matched and linked as POST /contacts does, in a transaction, once the read
    // alone found nothing to refuse (a retry is answered first).
    const alone = { ...absent, ...((await runNamed(db, read.compile(db))).rows[0] as object) } as CreateRead;
    if (alone.existing === null) {
      checkCreate(alone, input);
      fieldValues(alone, company.currency, input);
      const matched = await db.transaction().execute((trx: Trx) => matchOrCreateContact(trx, company, details, scope.causedBy));
      contactId = sql`${matched.contact.id}::uuid`;
      linkedPerson = matched.contact.reference;
      checkParties(matched.contact.id, alone.named_owner_id ?? undefined);
    }
  }
  const matching = details && !details.external;
  const values = matching
    ? personValues(company, wantedPerson(company, details), scope.causedBy, { rule: 'server', touch: 'on_change' })
    : undefined;
  if (values) contactId = sql`(select id from person)`;

  const reference = newReference('D');
  const set = createColumns(input, amounts);
  const insert = sql`insert into deals (company_id, reference, pipeline_id, stage_id, contact_id
      ${sql.join(
        [...set.keys()].map((column) => sql`, ${sql.ref(column)}`),
        sql``,
      )})
    select ${company.id}::uuid, ${reference}, k.new_pipeline_id, k.new_stage_id, ${contactId}
      ${sql.join(
        [...set.values()].map((value) => sql`, ${value}`),
        sql``,
      )}
    from k
    where exists (select from ok)
      ${values && typeof input.owner === 'string' ? sql`and (select id from person) is distinct from k.named_owner_id` : sql``}
    returning *`;
  const link = linkFor('deal', input.external, null, undefined);
  const { rows } = await writeStatement(
    [
      sql`k as (${read})`,
      sql`ok as (select from k where ${createGate(input, refused)})`,
      values && personCtes(slotsOf(values), { gate: 'ok' }),
      sql`added as (${insert})`,
      linkCte('linked', company.id, 'deal', link, 'added'),
      readAuditCte('answer_read', scope.answerRead, [reference], 'added'),
    ],
    sql`select k.*, a.*, a.expected_close::text as expected_close, a.value::text as value,
      a.commission::text as commission, a.version::text as version
      ${values ? sql`, (select reference from person) as matched_person` : sql``}
      from k left join added a on true`,
  ).execute(db);
  const found = { ...absent, ...(rows[0] as object) } as CreateRead & Partial<DealRow> & { matched_person?: string | null };
  if (found.existing !== null) {
    // Sent before (a retry): the deal is read on its own, so the create's read plans without its joins.
    const sent = await runNamed(db, selectDeals(db, company.id).where('deals.id', '=', found.existing).compile());
    if (sent.rows[0]) return dealUnchanged(scope, sent.rows[0] as DealRecord);
  }
  checkCreate(found, input);
  fieldValues(found, company.currency, input);
  const knownContact = input.enquiry !== undefined ? found.enquiry_contact_id : found.person_id;
  if (!details) checkParties(knownContact ?? undefined, found.named_owner_id ?? undefined);
  if (!found.id) {
    if (values && typeof input.owner === 'string') {
      throw fieldProblem('owner', 'same_party', 'The owner is not the person the deal is with.');
    }
    return stale;
  }
  const dealRow = Object.fromEntries(
    Object.entries(found).filter(([column]) => !(column in absent) && !readColumns.has(column) && column !== 'matched_person'),
  );
  const personReference =
    found.matched_person ?? linkedPerson ?? (input.enquiry !== undefined ? found.enquiry_person : (input.person as string));
  const record = {
    ...(dealRow as unknown as DealRecord),
    pipeline_key: found.new_pipeline_key as string,
    pipeline_purpose: found.new_pipeline_purpose as 'sales' | 'leasing',
    stage_key: found.new_stage_key as string,
    stage_kind: 'open' as const,
    stage_probability: found.new_stage_probability as number,
    person_reference: personReference as string,
    lead_reference: input.enquiry ?? null,
    home_slug: input.home !== undefined ? input.home : input.enquiry !== undefined ? found.enquiry_home : null,
    owner_reference: input.owner ?? null,
    currency: company.currency,
    external: linksAfter([], link, null),
  };
  return { row: record, created: true, version: found.version as string };
}

/** The columns of the create's read beside the deal's own in the statement's answer. */
const readColumns = new Set([
  'existing',
  'new_pipeline_id',
  'new_pipeline_key',
  'new_pipeline_purpose',
  'new_stage_id',
  'new_stage_key',
  'new_stage_kind',
  'new_stage_probability',
  'named_home_id',
  'named_owner_id',
  'named_owner_erased',
  'handler_known',
  'department_known',
]);
