import { iso } from '../../lib/dates';
import { einvoiceDeadline } from '../../lib/einvoice/handoff';
import type { Address, TaxDocument } from '../../lib/einvoice/document';
import type { InvoiceRow } from './invoices';

/** A document as the API answers it (schema/statements/invoices.ts `InvoiceSchema`): every figure as issued. */
export function presentInvoice(row: InvoiceRow) {
  const document: TaxDocument = row.document;
  const address = (a: Address) => ({
    line1: a.line1,
    line2: a.line2 ?? null,
    city: a.city,
    subdivision: a.subdivision,
    country: a.country,
  });
  return {
    id: row.id,
    number: row.number,
    kind: row.kind,
    type_code: row.type_code,
    simplified: row.simplified,
    issue_date: row.issue_date,
    currency: row.currency,
    source: { kind: row.source_kind, key: row.source_key },
    credits: row.credits,
    credit_reason: document.credit?.reason ?? null,
    seller: {
      name: document.seller.name,
      legal_name: document.seller.legalName,
      trn: document.seller.trn,
      address: address(document.seller.address),
    },
    principal: document.principal ? { name: document.principal.name, trn: document.principal.trn } : null,
    buyer: {
      name: document.buyer.name,
      trn: document.buyer.trn ?? null,
      reference: document.buyer.reference ?? null,
      address: address(document.buyer.address),
    },
    period: document.period ? { start: document.period.start, end: document.period.end } : null,
    lines: document.lines.map((line) => ({
      name: line.name,
      description: line.description,
      quantity: line.quantity,
      unit_code: line.unitCode,
      category: line.category,
      rate: line.rate,
      exemption_reason: line.exemptionReason ?? null,
      net: line.net,
      vat: line.vat,
      gross: line.gross,
    })),
    totals: document.totals,
    einvoice: {
      status: row.einvoice_status,
      reasons: row.einvoice_reasons,
      answered_at: row.einvoice_answered_at === null ? null : iso(row.einvoice_answered_at),
      deadline: einvoiceDeadline(row.issue_date),
      attempts: row.einvoice_attempts,
      last_error: row.einvoice_last_error,
    },
    created_at: iso(row.created_at),
  };
}
