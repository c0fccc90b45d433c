import Big from 'big.js';
import { sql, type Updateable } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { notFound } from '../../lib/errors';
import type { CausedBy } from '../../lib/events';
import { linkExternal, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { fitsDigits, storedDigits } from '../../lib/money';
import { checkDepartment, checkHandler, fieldProblem, resolveContact, resolveListing } from '../../lib/parties';
import { matchOrCreateContact } from '../../lib/people';
import { newReference } from '../../lib/references';
import type { DealsTable } from '../../schema/pipelines/db';
import type { DealInputValue, DealPatchValue } from '../../schema/pipelines/deals';
import type { Company } from '../../schema/platform/db';

/**
 * A company's deals with what their answer shows joined: the pipeline's and stage's keys, the stage's kind (the
 * deal's status) and probability, the pipeline's purpose, the references of the person, enquiry and owner, the home's
 * English slug and the company's currency. `rows`: the deals to read (all by default), e.g. one locked bare row
 * (lib/db/locked.ts).
 */
export function selectDeals(executor: Executor, companyId: string, rows = executor.selectFrom('deals').selectAll()) {
  return executor
    .selectFrom(rows.as('deals'))
    .innerJoin('pipelines as pipeline', 'pipeline.id', 'deals.pipeline_id')
    .innerJoin('pipeline_stages as stage', 'stage.id', 'deals.stage_id')
    .innerJoin('contacts as person', 'person.id', 'deals.contact_id')
    .innerJoin('companies as company', 'company.id', 'deals.company_id')
    .leftJoin('leads as lead', 'lead.id', 'deals.lead_id')
    .leftJoin('listings as home', 'home.id', 'deals.listing_id')
    .leftJoin('contacts as owner', 'owner.id', 'deals.owner_id')
    .selectAll('deals')
    .select([
      sql<string | null>`deals.expected_close::text`.as('expected_close'),
      sql<string | null>`deals.value::text`.as('value'),
      sql<string | null>`deals.commission::text`.as('commission'),
      sql<string>`deals.version::text`.as('version'),
      'pipeline.key as pipeline_key',
      'pipeline.purpose as pipeline_purpose',
      'stage.key as stage_key',
      'stage.kind as stage_kind',
      'stage.probability as stage_probability',
      'person.reference as person_reference',
      'lead.reference as lead_reference',
      'home.slug_en as home_slug',
      'owner.reference as owner_reference',
      'company.currency as currency',
    ])
    .where('deals.company_id', '=', companyId);
}

/** The deal of this company with this reference, locked (the bare row) for the write; 404 when there is none. */
export async function lockDeal(trx: Trx, companyId: string, reference: string) {
  const row = trx.selectFrom('deals').selectAll().where('company_id', '=', companyId).where('reference', '=', reference);
  const deal = await readLocked(() => selectDeals(trx, companyId, row.forUpdate()).executeTakeFirst());
  if (!deal) throw notFound(`The deal ${reference}`);
  return deal;
}

/** An amount of the body kept to the currency's digits, or 400 `currency_digits` at `path`. */
function amountIn(amount: string, company: Company, path: string): string {
  const digits = storedDigits(company.currency);
  if (!fitsDigits(amount, digits)) {
    throw fieldProblem(path, 'currency_digits', `At most ${digits} digits after the point in this currency.`);
  }
  return new Big(amount).toFixed(digits);
}

/** The pipeline a new deal goes in: the one named, else the company's first; 400 at `pipeline` when there is none. */
async function pipelineOf(trx: Trx, companyId: string, key: string | undefined) {
  let select = trx.selectFrom('pipelines').select(['id', 'key']).where('company_id', '=', companyId);
  select = key === undefined ? select.orderBy('position').orderBy('created_at').limit(1) : select.where('key', '=', key);
  const pipeline = await select.executeTakeFirst();
  if (!pipeline) {
    throw key === undefined
      ? fieldProblem('pipeline', 'no_pipeline', 'The company has no pipeline yet: it adds them in its admin.')
      : fieldProblem('pipeline', 'unknown_pipeline', `${key} is not a pipeline of this company.`);
  }
  return pipeline;
}

/** The stage of a new deal: the open stage named, else the pipeline's first open stage (400 at `stage` otherwise). */
async function openStageOf(trx: Trx, pipeline: { id: string; key: string }, key: string | undefined) {
  let select = trx
    .selectFrom('pipeline_stages')
    .select(['id', 'key', 'kind'])
    .where('pipeline_id', '=', pipeline.id)
    .orderBy('position')
    .orderBy('created_at');
  select = key === undefined ? select.where('kind', '=', 'open').limit(1) : select.where('key', '=', key);
  const stage = await select.executeTakeFirst();
  if (!stage) {
    throw key === undefined
      ? fieldProblem('stage', 'no_open_stage', `The pipeline ${pipeline.key} has no open stage.`)
      : fieldProblem('stage', 'unknown_stage', `${key} is not a stage of the pipeline ${pipeline.key}.`);
  }
  if (stage.kind !== 'open') {
    throw fieldProblem('stage', 'stage_not_open', `A deal starts in an open stage; move it to ${key} afterwards.`);
  }
  return stage;
}

/** What the enquiry a deal comes from gives it: its person, and its home, department and assignee as defaults. */
async function enquiryOf(trx: Trx, companyId: string, reference: string) {
  const lead = await trx
    .selectFrom('leads')
    .select(['id', 'contact_id', 'listing_id', 'department_key', 'assignee_id', 'erased'])
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  if (!lead) throw fieldProblem('enquiry', 'unknown_reference', `${reference} is not a lead of this company.`);
  if (lead.erased) throw fieldProblem('enquiry', 'lead_erased', `The lead ${reference} is erased.`);
  if (lead.contact_id === null) throw fieldProblem('enquiry', 'enquiry_without_person', `The lead ${reference} names no person.`);
  return lead;
}

/** The columns the body's optional fields set (both on POST and PATCH), checked against the company's records. */
async function fieldValues(trx: Trx, company: Company, input: DealPatchValue): Promise<Updateable<DealsTable>> {
  const set: Updateable<DealsTable> = {};
  if (input.title !== undefined) set.title = input.title;
  if (input.home !== undefined) set.listing_id = input.home && (await resolveListing(trx, company.id, input.home)).id;
  if (input.owner !== undefined) set.owner_id = input.owner && (await resolveContact(trx, company.id, input.owner, 'owner'));
  if (input.handler !== undefined) {
    if (input.handler !== null) await checkHandler(trx, company.id, input.handler);
    set.handler_id = input.handler;
  }
  if (input.department !== undefined) {
    if (input.department !== null) await checkDepartment(trx, company.id, input.department);
    set.department_key = input.department;
  }
  if (input.value !== undefined) set.value = input.value && amountIn(input.value, company, 'value');
  if (input.commission !== undefined) set.commission = input.commission && amountIn(input.commission, company, 'commission');
  if (input.probability !== undefined) set.probability = input.probability;
  if (input.expected_close !== undefined) set.expected_close = input.expected_close;
  return set;
}

function checkParties(contactId: string, ownerId: string | null | undefined) {
  if (ownerId && ownerId === contactId)
    throw fieldProblem('owner', 'same_party', 'The owner is not the person the deal is with.');
}

/**
 * Adds a deal in an open stage, from an enquiry (its person, and its home, department and assignee unless sent), a
 * person's reference, or their details (matched or added as POST /contacts does). Sent again with the same external
 * id: the first deal, `created: false`, nothing written. Announces nothing (the spec names no deal creation event; a
 * mirror finds new deals with `updated_since`). Run it in `transactionRetryingConflict`: a concurrent create with the
 * same external id (or the same new person) fails on a unique index, and the retry finds the first.
 */
export async function createDeal(
  trx: Trx,
  company: Company,
  input: DealInputValue,
  causedBy: CausedBy,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'deal', input.external);
    if (existing) return { id: existing, created: false };
  }
  const pipeline = await pipelineOf(trx, company.id, input.pipeline);
  const stage = await openStageOf(trx, pipeline, input.stage);
  const defaults: Updateable<DealsTable> = {};
  let contactId: string;
  if (input.enquiry !== undefined) {
    const lead = await enquiryOf(trx, company.id, input.enquiry);
    contactId = lead.contact_id as string;
    Object.assign(defaults, {
      lead_id: lead.id,
      listing_id: lead.listing_id,
      department_key: lead.department_key,
      handler_id: lead.assignee_id,
    });
  } else if (typeof input.person === 'string') {
    contactId = await resolveContact(trx, company.id, input.person, 'person');
  } else {
    contactId = (await matchOrCreateContact(trx, company, input.person ?? {}, causedBy)).contact.id;
  }
  const set = { ...defaults, ...(await fieldValues(trx, company, input)) };
  checkParties(contactId, set.owner_id);
  const deal = await trx
    .insertInto('deals')
    .values({
      ...set,
      company_id: company.id,
      reference: newReference('D'),
      pipeline_id: pipeline.id,
      stage_id: stage.id,
      contact_id: contactId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'deal', deal.id, input.external);
  return { id: deal.id, created: true };
}

/**
 * PATCH of a deal: title, home, owner, handler, department, value and commission, probability (null: the stage's
 * again), expected close, and an external id. Announces nothing (no deal update event in the spec): `updated_at`
 * moves, so `updated_since` finds it.
 */
export async function updateDeal(trx: Trx, company: Company, reference: string, input: DealPatchValue): Promise<string> {
  const deal = await lockDeal(trx, company.id, reference);
  const set = await fieldValues(trx, company, input);
  checkParties(deal.contact_id, set.owner_id === undefined ? deal.owner_id : set.owner_id);
  const linked = input.external ? await linkExternal(trx, company.id, 'deal', deal.id, input.external) : false;
  const same = (column: string, value: unknown) => {
    const current = deal[column as keyof typeof deal];
    if (value === null || current === null) return value === current;
    return column === 'value' || column === 'commission'
      ? new Big(String(current)).eq(String(value))
      : String(current) === String(value);
  };
  const changed = Object.entries(set).some(([column, value]) => !same(column, value));
  if (changed) await trx.updateTable('deals').set(set).where('id', '=', deal.id).execute();
  else if (linked) await trx.updateTable('deals').set({ updated_at: sql`clock_timestamp()` }).where('id', '=', deal.id).execute();
  return deal.id;
}
