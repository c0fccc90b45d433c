import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import type { TaxDocument } from '../../lib/einvoice/document';
import { einvoiceDeadlineDays } from '../../lib/einvoice/handoff';
import { notFound } from '../../lib/errors';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import type { Company } from '../../schema/platform/db';
import type { TaxDocumentSource } from '../../lib/invoices';

/**
 * Tax invoices and credit notes as issued (migration 0045; lib/invoices.ts issues them): listed newest first, read by
 * number, as JSON, as their PINT AE XML (the bytes issued) or as a printable page. Nothing here computes an amount: the
 * document holds every figure as it was issued.
 */

export type InvoiceRow = {
  id: string;
  number: string;
  kind: 'invoice' | 'credit_note';
  type_code: TaxDocument['typeCode'];
  simplified: boolean;
  issue_date: string;
  currency: string;
  source_kind: TaxDocumentSource;
  source_key: string;
  credits: string | null;
  document: TaxDocument;
  einvoice_status: 'pending' | 'accepted' | 'rejected';
  einvoice_reasons: string[] | null;
  einvoice_answered_at: Date | null;
  einvoice_attempts: number;
  einvoice_last_error: string | null;
  created_at: Date;
};

/** Newest first: the order of issue (migration 0045 `issued_order`: a series' documents in number order). */
const newestFirst: KeysetSort = {
  name: 'invoices',
  columns: [{ ref: 'd.issued_order', direction: 'desc', type: 'bigint' }],
};

function documents(db: Executor, companyId: string) {
  return db
    .selectFrom('tax_documents as d')
    .leftJoin('tax_documents as c', 'c.id', 'd.credits_id')
    .where('d.company_id', '=', companyId)
    .select([
      'd.id',
      'd.number',
      'd.kind',
      'd.type_code',
      'd.simplified',
      sql<string>`d.issue_date::text`.as('issue_date'),
      'd.currency',
      'd.source_kind',
      'd.source_key',
      'c.number as credits',
      'd.document',
      'd.einvoice_status',
      'd.einvoice_reasons',
      'd.einvoice_answered_at',
      'd.einvoice_attempts',
      'd.einvoice_last_error',
      'd.created_at',
    ]);
}

export type InvoiceFilter = {
  page_size: number;
  cursor?: string;
  kind?: 'invoice' | 'credit_note';
  issued_from?: string;
  issued_to?: string;
  einvoice_status?: 'pending' | 'accepted' | 'rejected';
  einvoice_due_by?: string;
};

/** A page of the company's documents, newest first, filtered. */
export async function listInvoices(db: Executor, company: Company, filter: InvoiceFilter) {
  let query = documents(db, company.id);
  if (filter.kind) query = query.where('d.kind', '=', filter.kind);
  if (filter.issued_from) query = query.where('d.issue_date', '>=', filter.issued_from);
  if (filter.issued_to) query = query.where('d.issue_date', '<=', filter.issued_to);
  if (filter.einvoice_status) query = query.where('d.einvoice_status', '=', filter.einvoice_status);
  if (filter.einvoice_due_by) {
    // Not yet accepted, and its deadline (lib/einvoice/handoff.ts) on or before the day.
    query = query
      .where('d.einvoice_status', '<>', 'accepted')
      .where(sql<boolean>`d.issue_date + ${einvoiceDeadlineDays}::int <= ${filter.einvoice_due_by}::date`);
  }
  const rows = (await paginate(query, newestFirst, filter).execute()) as unknown as InvoiceRow[];
  return pageOf(rows, newestFirst, filter.page_size);
}

/** One document by its number; 404 for a number this company never issued. */
export async function invoiceByNumber(db: Executor, company: Company, number: string): Promise<InvoiceRow> {
  const row = await documents(db, company.id).where('d.number', '=', number).executeTakeFirst();
  if (!row) throw notFound(`The document ${number}`);
  return row as unknown as InvoiceRow;
}

/** The PINT AE XML of a document, the bytes issued; 404 as {@link invoiceByNumber}. */
export async function invoiceXml(db: Executor, company: Company, number: string): Promise<string> {
  const row = await db
    .selectFrom('tax_documents')
    .where('company_id', '=', company.id)
    .where('number', '=', number)
    .select('xml')
    .executeTakeFirst();
  if (!row) throw notFound(`The document ${number}`);
  return row.xml;
}
