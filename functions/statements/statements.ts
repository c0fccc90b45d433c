import { sql } from 'kysely';
import { type PersonalRead, readAuditCte } from '../../lib/audit';
import { randomToken, sha256 } from '../../lib/crypto';
import type { Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import {
  type Closing,
  type MonthSpan,
  monthClosing,
  monthSpan,
  type RecordedClosings,
  recordedClosings,
} from '../../lib/statement-months';
import type { RentVatAccountedBy, TaxCategory } from '../../schema/common/tax';
import type { LineKind } from '../../schema/statements/db';
import type { Company } from '../../schema/platform/db';

/**
 * Owner statements, read from the lines the database books with each receipt, bounce and charge (migration 0023), and
 * with each booking's payment and refund (migration 0041):
 * a month's statement is the owner's lines whose day falls in it. Nothing here computes an amount: the lines are
 * summed in statements.present.ts, once, for the JSON and the printable page alike.
 */

/** A statement line as read: amounts and days as text, the records it names by their references. */
export type LineRow = {
  id: string;
  kind: LineKind;
  day: string;
  amount: string;
  currency: string;
  lease: string | null;
  home: string;
  payment_id: string | null;
  charge_id: string | null;
  job: string | null;
  /** How a receipt was paid: `cheque`, an online payment's method (`card`, …), or null (migration 0039). */
  method: string | null;
  /** The online payment (`pay_…`) that made the receipt, or the booking's payment of a booking's line. */
  online_payment: string | null;
  /** The VAT in `amount`, same sign (migration 0044); null on lines without (job charges, receipts before it). */
  vat: string | null;
  /** The tax category the amount was booked under (migration 0044). */
  tax_category: TaxCategory | null;
  /** Who accounts for the rent's VAT, kept on the line's receipt (migration 0044); null on other lines and older receipts. */
  rent_vat_accounted_by: RentVatAccountedBy | null;
  /** The booking's reference of a `booking_received` or `booking_refunded` line (migration 0041). */
  booking: string | null;
  /** The refund (`rfd_…`) of a `booking_refunded` line. */
  refund: string | null;
};

/** An owner's month: who, the company, when it closes, its lines, and the balance carried into it (if kept). */
export type StatementData = {
  owner: { id: string; reference: string; name: string | null };
  company: Pick<Company, 'name' | 'time_zone' | 'settings'>;
  span: MonthSpan;
  closing: Closing;
  lines: LineRow[];
  /** Per currency, every earlier line's sum; null when the company keeps no balance. */
  opening: Map<string, string> | null;
};

/** The lines of a company (and owner) in [from, to], with their lease's and job's references, in booking order. */
export function selectLines(db: Executor, companyId: string, from: string, to: string) {
  return db
    .selectFrom('owner_statement_lines as l')
    .leftJoin('leases as le', 'le.id', 'l.lease_id')
    .leftJoin('job_charges as ch', 'ch.id', 'l.charge_id')
    .leftJoin('jobs as j', 'j.id', 'ch.job_id')
    .leftJoin('rent_payments as rp', 'rp.id', 'l.payment_id')
    .leftJoin('bookings as b', 'b.id', 'l.booking_id')
    .select([
      sql<string>`l.id::text`.as('id'),
      'l.kind',
      sql<string>`l.day::text`.as('day'),
      sql<string>`l.amount::text`.as('amount'),
      'l.currency',
      'le.reference as lease',
      'l.home',
      'l.payment_id',
      'l.charge_id',
      'j.reference as job',
      'l.method',
      'l.online_payment_id as online_payment',
      sql<string | null>`l.vat::text`.as('vat'),
      'l.tax_category',
      'rp.rent_vat_accounted_by',
      'b.reference as booking',
      'l.refund_id as refund',
    ])
    .where('l.company_id', '=', companyId)
    .where('l.day', '>=', from)
    .where('l.day', '<=', to)
    .orderBy('l.day')
    .orderBy('l.id');
}

/**
 * The balance carried into `span` of each owner (by id), when the company keeps one (`statement_balance: carried`):
 * per currency, the sum of every earlier line; an owner with none gets an empty map. Empty when it keeps none.
 */
export async function openings(
  db: Executor,
  company: Company,
  ownerIds: string[],
  span: MonthSpan,
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  if (company.settings.statement_balance !== 'carried' || ownerIds.length === 0) return out;
  for (const id of ownerIds) out.set(id, new Map());
  const sums = await db
    .selectFrom('owner_statement_lines')
    .select(['owner_id', 'currency', sql<string>`sum(amount)::text`.as('sum')])
    .where('owner_id', 'in', ownerIds)
    .where('company_id', '=', company.id)
    .where('day', '<', span.from)
    .groupBy(['owner_id', 'currency'])
    .execute();
  for (const row of sums) out.get(row.owner_id)?.set(row.currency, row.sum);
  return out;
}

type OwnerKey = { reference: string } | { id: string };

/** The company's contact by reference (the API's) or id (a page link's); 404 when there is none. */
async function ownerOf(db: Executor, companyId: string, key: OwnerKey) {
  const query = db.selectFrom('contacts').select(['id', 'reference', 'name']).where('company_id', '=', companyId);
  const owner = await ('id' in key
    ? query.where('id', '=', key.id)
    : query.where('reference', '=', key.reference)
  ).executeTakeFirst();
  if (!owner) throw notFound(`The owner ${'id' in key ? key.id : key.reference}`);
  return owner;
}

/**
 * An owner's statement of `month` (`YYYY-MM`): the owner (404 when the company has no such person; a person with no
 * line that month gets an empty statement), its lines, and the balance carried into it when the company keeps one
 * (`statement_balance: carried`): the sum of every earlier line, per currency.
 */
export async function ownerStatement(
  db: Executor,
  company: Company,
  key: OwnerKey,
  month: string,
  now: Date,
): Promise<StatementData> {
  const owner = await ownerOf(db, company.id, key);
  const span = monthSpan(month);
  const lines = await selectLines(db, company.id, span.from, span.to).where('l.owner_id', '=', owner.id).execute();
  const opening = (await openings(db, company, [owner.id], span)).get(owner.id) ?? null;
  return { owner, company, span, closing: await monthClosing(db, company, month, now), lines, opening };
}

/** The months list's order: newest month first, then by owner. */
const monthsSort: KeysetSort = {
  name: 'owner_statement_months',
  columns: [
    { ref: 's.month', direction: 'desc', type: 'text' },
    { ref: 's.owner_id', direction: 'desc', type: 'uuid' },
  ],
};

export type MonthRow = { owner: string; month: string; announced_at: Date | null };

/**
 * A page of the company's owners and months that have a statement (at least one line), newest first, with the
 * closings recorded of its months as of `now`.
 */
export async function statementMonths(
  db: Executor,
  company: Company,
  query: { owner?: string; from?: string; to?: string; page_size: number; cursor?: string },
  now: Date,
): Promise<{ rows: MonthRow[]; next_cursor: string | null; closings: RecordedClosings }> {
  let select = db
    .selectFrom('owner_statements as s')
    .innerJoin('contacts as o', 'o.id', 's.owner_id')
    .select(['o.reference as owner', sql<string>`to_char(s.month, 'YYYY-MM')`.as('month'), 's.announced_at'])
    .where('s.company_id', '=', company.id);
  if (query.owner !== undefined) select = select.where('o.reference', '=', query.owner);
  if (query.from !== undefined) select = select.where('s.month', '>=', `${query.from}-01`);
  if (query.to !== undefined) select = select.where('s.month', '<=', `${query.to}-01`);
  const rows = await paginate(select, monthsSort, query).execute();
  const page = pageOf(rows, monthsSort, query.page_size);
  const closings = await recordedClosings(db, company.id, [...new Set(page.rows.map((row) => row.month))], now);
  return { ...page, closings };
}

export type LinkMade = { token: string; language: 'en' | 'ar'; expires_at: Date };

/**
 * A link to the printable page of an owner's month: 32 random characters (190 bits), of which only the SHA-256 is
 * kept, working until `expires_at`. One statement: the owner's row (404 when unknown), the link and the audit row of
 * the personal data it opens (the owner's name and accounts).
 */
export async function createLink(
  db: Executor,
  company: Company,
  input: { owner: string; month: string; language?: 'en' | 'ar'; expires_in_days?: number },
  now: Date,
  read: PersonalRead | undefined,
): Promise<LinkMade> {
  const token = randomToken(32);
  const language = input.language ?? 'en';
  const expires_at = new Date(now.getTime() + (input.expires_in_days ?? 30) * 86_400_000);
  const audit = readAuditCte('audited', read, [input.owner], 'link');
  const { rows } = await sql<{ id: string }>`
    with owner as (
      select id from contacts where company_id = ${company.id}::uuid and reference = ${input.owner}
    ),
    link as (
      insert into owner_statement_links (company_id, owner_id, month, language, token_hash, expires_at, created_at)
      select ${company.id}::uuid, owner.id, ${`${input.month}-01`}::date, ${language}, ${await sha256(token)},
        ${expires_at}::timestamptz, ${now}::timestamptz
      from owner
      returning id
    )${audit ? sql`, ${audit}` : sql``}
    select id from link`.execute(db);
  if (rows.length === 0) throw notFound(`The owner ${input.owner}`);
  return { token, language, expires_at };
}

export type LinkFound = { owner_id: string; month: string; language: 'en' | 'ar'; expired: boolean };

/** The link of a page token on this company (undefined: unknown), and whether it has expired at `now`. */
export async function linkOf(db: Executor, companyId: string, token: string, now: Date): Promise<LinkFound | undefined> {
  if (!/^[A-Za-z0-9]{32}$/.test(token)) return undefined;
  const link = await db
    .selectFrom('owner_statement_links')
    .select(['owner_id', sql<string>`to_char(month, 'YYYY-MM')`.as('month'), 'language', 'expires_at'])
    .where('company_id', '=', companyId)
    .where('token_hash', '=', await sha256(token))
    .executeTakeFirst();
  if (!link) return undefined;
  return { owner_id: link.owner_id, month: link.month, language: link.language, expired: link.expires_at <= now };
}
