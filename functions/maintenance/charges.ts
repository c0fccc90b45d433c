import { sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { todayIn } from '../../lib/dates';
import type { Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventInput, newEventId } from '../../lib/events';
import { externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { amountIn } from '../../lib/money';
import { fieldProblem, unknownReference } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { checkMove, statusMachine } from '../../lib/transitions';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { ChargeStatus, JobChargeRow, JobChargesTable } from '../../schema/maintenance/db';
import type { ChargeInputValue, ChargePatchValue } from '../../schema/maintenance/charges';
import { type ChargeRecord, selectCharges } from './charges.present';
import { stamp } from '../../lib/clock';
import { type HomeAddressParts, homeAddressJson, type IssuedDocument, issueCtes, issuedJson } from '../../lib/invoices';
import { taxRatesJson } from '../../lib/rent-receipts';
import type { TaxRate } from '../../lib/tax';
import { type ChargeBuyer, chargeCreditNote, chargeInvoice, chargeTax } from './charge-invoices';

/**
 * Charges' writes in two round trips (lib/write.ts): one read, then one statement (the charge, its link, its event,
 * the audit of the answer). A charge booked to an owner names a person, and a description may name the renter: such
 * answers are audited.
 */

/** A renter's charge's status (lib/transitions.ts): booked, then paid or cancelled (a mistake); cancelled is final. */
export const chargeMachine = statusMachine<ChargeStatus>('charge', {
  booked: ['paid', 'cancelled'],
  paid: ['cancelled'],
  cancelled: [],
});

/** An owner's or the company's charge (booked to them, never marked paid here): only cancelled; cancelled is final. */
export const ownerChargeMachine = statusMachine<ChargeStatus>('charge', {
  booked: ['cancelled'],
  paid: ['cancelled'],
  cancelled: [],
});

const personal = (charge: { id: string; booked_owner_id: string | null; description: string | null }) =>
  charge.booked_owner_id === null && charge.description === null ? [] : [charge.id];

const shownRow = (cte: string) =>
  sql.raw(`select *, cost::text as cost, booked_on::text as booked_on, paid_on::text as paid_on,
    cancelled_on::text as cancelled_on, tax_rate::text as tax_rate, net_amount::text as net_amount,
    vat_amount::text as vat_amount from ${cte}`);

async function unchanged(scope: WriteScope, charge: ChargeRecord, created = false): Promise<Written<ChargeRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, personal(charge));
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: charge, created, version: charge.version };
}

/**
 * What a charge's create reads: the charge sent before, the job (its lease, its home's address for an invoice), the
 * home's owner now (name and TRN for an invoice), the lease's renter, the rate table.
 */
type CreateRead = {
  existing: string | null;
  found_job_id: string | null;
  job_payer: 'owner' | 'renter' | 'company' | null;
  job_home: string | null;
  job_lease_id: string | null;
  found_owner_id: string | null;
  owner_ref: string | null;
  owner_name: string | null;
  owner_trn: string | null;
  renter_ref: string | null;
  renter_name: string | null;
  renter_trn: string | null;
  home_address: HomeAddressParts | null;
  tax_rates: TaxRate[];
};

/**
 * Records a charge on a job (any status: a cancelled job may still have cost a visit), booked today in the company's
 * time zone to the home's owner then — the landlord of its active lease, else the owner its maintenance settings name:
 * the SQL function `home_owner` (migration 0041), the rule a booking's statement lines follow too —, and records
 * `job_charge.booked`. Same external id: the first charge.
 */
export async function addCharge(scope: WriteScope, input: ChargeInputValue): Promise<Written<ChargeRecord> | Stale> {
  const { db, company } = scope;
  const held = input.external ? externalHolder(company.id, 'job_charge', input.external).holder : sql`null::text`;
  const { rows } = await sql<CreateRead>`
    select k.existing, job.id as found_job_id, job.payer as job_payer, home.slug_en as job_home,
      job.lease_id as job_lease_id, o.id as found_owner_id, o.reference as owner_ref, o.name as owner_name,
      o.trn as owner_trn, r.reference as renter_ref, r.name as renter_name, r.trn as renter_trn,
      ${homeAddressJson(sql`job.listing_id`)} as home_address, ${taxRatesJson} as tax_rates
    from (select ${held} as existing) k
    left join jobs job on job.company_id = ${company.id}::uuid and job.reference = ${input.job}
    left join listings home on home.id = job.listing_id
    left join lateral (select home_owner(job.listing_id) as owner_id) n on true
    left join contacts o on o.id = n.owner_id
    left join leases lease on lease.id = job.lease_id
    left join contacts r on r.id = lease.renter_id
  `.execute(db);
  const read = rows[0] as CreateRead;
  if (read.existing !== null) {
    // Sent before (a retry): the charge is read on its own, as a deal's and a job's create do (their reads then plan
    // without its joins).
    const sent = await selectCharges(db, company.id).where('job_charges.id', '=', read.existing).executeTakeFirst();
    if (sent) return unchanged(scope, sent as ChargeRecord);
  }
  if (read.found_job_id === null) throw unknownReference('job', `${input.job} is not a job of this company.`);
  const id = crypto.randomUUID();
  const cost = amountIn(input.cost, company.currency, 'cost');
  const payer = input.payer ?? (read.job_payer as 'owner');
  const day = todayIn(company.time_zone, scope.now);
  const tax = chargeTax(company, payer, input.tax_category, cost, read.tax_rates, day);
  const insert = db
    .insertInto('job_charges')
    .values({
      id,
      company_id: company.id,
      job_id: read.found_job_id,
      cost,
      payer,
      description: input.description ?? null,
      booked_on: day,
      booked_owner_id: read.found_owner_id,
      tax_category: tax.category,
      tax_rate: tax.rate,
      net_amount: tax.net,
      vat_amount: tax.vat,
    })
    .returningAll();
  // The tax invoice of the charge recharged (issue 35): to the owner, or the lease's renter; issued in this statement.
  const buyer: ChargeBuyer | null =
    payer === 'owner' && read.owner_ref !== null
      ? { label: 'Owner', reference: read.owner_ref, name: read.owner_name, trn: read.owner_trn }
      : payer === 'renter' && read.renter_ref !== null
        ? { label: 'Tenant', reference: read.renter_ref, name: read.renter_name, trn: read.renter_trn }
        : null;
  const invoice = chargeInvoice(company, {
    id,
    job: input.job,
    home: read.job_home as string,
    day,
    cost,
    tax,
    payer,
    buyer,
    address: read.home_address,
  });
  const link = linkFor('job_charge', input.external, null, undefined);
  const event: EventInput = {
    companyId: company.id,
    type: 'job_charge.booked',
    causedBy: scope.causedBy,
    data: { charge_id: id, job_reference: input.job },
  };
  const { rows: written } = await writeStatement(
    [
      sql`added as (${insert})`,
      linkCte('linked', company.id, 'job_charge', link, 'added'),
      eventCtes('booked', newEventId(), event, 'added'),
      invoice?.issued === true &&
        issueCtes('invoice', 'added', {
          companyId: company.id,
          kind: 'invoice',
          prepared: invoice,
          source: { kind: 'job_charge', key: id },
          leaseId: read.job_lease_id,
          ownerId: payer === 'owner' ? read.found_owner_id : null,
          causedBy: scope.causedBy,
        }),
      readAuditCte(
        'answer_read',
        scope.answerRead,
        personal({ id, booked_owner_id: read.found_owner_id, description: input.description ?? null }),
      ),
    ],
    shownRow('added'),
  ).execute(db);
  const row = written[0] as JobChargeRow | undefined;
  if (!row) throw new Error('the new charge was not stored');
  const record: ChargeRecord = {
    ...row,
    job_reference: input.job,
    home_slug: read.job_home as string,
    owner_reference: read.owner_ref,
    currency: company.currency,
    external: linksAfter([], link, null),
  };
  return { row: record, created: true, version: row.version };
}

const fixedFields = ['job', 'cost', 'payer', 'description', 'booked_on', 'booked_owner', 'cancelled_on', 'tax_category'] as const;

async function lockCharge(trx: Trx, companyId: string, id: string): Promise<void> {
  await sql`select from job_charges where company_id = ${companyId}::uuid and id = ${id}::uuid for update`.execute(trx);
}

/**
 * PATCH of a charge: cancel it (a mistake: `cancelled_on` today, `job_charge.cancelled`), mark a renter's charge paid,
 * or link your id. Any other change is `409 charge_fixed`; a move `chargeMachine` (a renter's charge) or `ownerChargeMachine` does not allow is `409
 * invalid_transition`; the same status sent again answers the charge unchanged. The database refuses changes to the
 * booked fields too.
 */
export function changeCharge(scope: WriteScope, id: string, input: ChargePatchValue): Promise<Written<ChargeRecord>> {
  return writeLockedWhenStale(
    scope,
    (trx) => lockCharge(trx, scope.company.id, id),
    async (attempt): Promise<Written<ChargeRecord> | Stale> => {
      const { db, company } = attempt;
      const held = input.external
        ? externalHolder(company.id, 'job_charge', input.external).holder
        : sql<string | null>`null::text`;
      const read = (await selectCharges(db, company.id)
        .select(held.as('holder'))
        .select(issuedJson(company.id, 'invoice', 'job_charge', sql`job_charges.id::text`).as('invoice'))
        .select(issuedJson(company.id, 'credit_note', 'job_charge', sql`job_charges.id::text`).as('credit_note'))
        .where('job_charges.id', '=', id)
        .executeTakeFirst()) as
        | (ChargeRecord & { holder: string | null; invoice: IssuedDocument | null; credit_note: IssuedDocument | null })
        | undefined;
      if (!read) throw notFound(`The charge ${id}`);
      checkIfMatch(attempt.ifMatch, read.version);
      const { holder, invoice, credit_note, ...charge } = read;
      const sent = fixedFields.filter((field) => input[field] !== undefined);
      if (sent.length > 0) {
        throw new ApiError('charge_fixed', `A charge never changes (${sent.join(', ')}): cancel it and record it again.`);
      }
      const link = linkFor('job_charge', input.external, holder, charge.id);
      const step = input.status;
      const set: Updateable<JobChargesTable> = {};
      const today = todayIn(company.time_zone, attempt.now);
      if (step !== undefined && step !== charge.status) {
        const renters = charge.payer === 'renter';
        const why = renters ? undefined : `only a renter’s charge is marked paid; the ${charge.payer} pays this one`;
        checkMove(renters ? chargeMachine : ownerChargeMachine, id, charge.status, step, 'status', why);
        if (step === 'paid') {
          const paidOn = input.paid_on ?? today;
          if (paidOn < charge.booked_on) throw fieldProblem('paid_on', 'before_booked_on', `On or after ${charge.booked_on}.`);
          if (paidOn > today) throw fieldProblem('paid_on', 'in_the_future', `A payment received: on or before today, ${today}.`);
          Object.assign(set, { status: 'paid', paid_on: paidOn });
        } else Object.assign(set, { status: 'cancelled', cancelled_on: today });
      }
      if (Object.keys(set).length === 0 && link.kind === 'none') return unchanged(attempt, charge);
      const update = db
        .updateTable('job_charges')
        .set({ ...set, updated_at: stamp })
        .where('id', '=', charge.id)
        .where(sql<boolean>`version = ${charge.version}::bigint`)
        .returningAll();
      const event: EventInput = {
        companyId: company.id,
        type: 'job_charge.cancelled',
        causedBy: attempt.causedBy,
        data: { charge_id: id, job_reference: charge.job_reference },
      };
      // A charge cancelled: the credit note of its invoice (issue 35), in this statement.
      const credit =
        set.status === 'cancelled' && invoice !== null && credit_note === null ? chargeCreditNote(invoice, today) : null;
      const { rows } = await writeStatement(
        [
          sql`changed as (${update})`,
          linkCte('linked', company.id, 'job_charge', link, 'changed'),
          set.status === 'cancelled' && eventCtes('cancelled', newEventId(), event, 'changed'),
          invoice !== null &&
            credit?.issued === true &&
            issueCtes('credit', 'changed', {
              companyId: company.id,
              kind: 'credit_note',
              prepared: credit,
              source: { kind: 'job_charge', key: charge.id },
              ownerId: charge.payer === 'owner' ? charge.booked_owner_id : null,
              credits: { id: invoice.id, number: invoice.number },
              causedBy: attempt.causedBy,
            }),
          readAuditCte('answer_read', attempt.answerRead, personal(charge)),
        ],
        shownRow('changed'),
      ).execute(db);
      const row = rows[0] as JobChargeRow | undefined;
      if (!row) return stale;
      return { row: { ...charge, ...row, external: linksAfter(charge.external, link, null) }, version: row.version };
    },
  );
}
