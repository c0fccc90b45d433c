import { type RawBuilder, sql } from 'kysely';
import type { Company } from '../schema/platform/db';
import { randomToken } from './crypto';
import {
  type Address,
  type Buyer,
  type DocumentInput,
  EinvoiceRefused,
  type LineInput,
  type Problem,
  type Seller,
  type TaxDocument,
  taxDocument,
} from './einvoice/document';
import { pintAeXml } from './einvoice/pint-ae';
import { type CausedBy, eventCtes, eventsCtes, newEventId } from './events';
import { chargesVatOn } from './tax';

/**
 * Tax invoices and credit notes, the one way they are issued (issue 35; docs/api-reference.md, "Tax invoices and
 * credit notes"; migration 0045). The code that records a taxable supply (a rent receipt, a booking paid, an owner's
 * month of fees, a job charge) or its reversal builds the document with {@link prepareDocument} before its write, and
 * adds {@link issueCtes} to its one write statement: the document takes the next number of its series there, with its
 * event, or not at all (a write that changes nothing issues nothing; a write that fails gives the number back).
 */

/** The series of each kind: invoices `INV-000001`…, credit notes `CRN-000001`…, each numbered without gaps per company. */
export const seriesOf = { invoice: 'INV', credit_note: 'CRN' } as const;
export type TaxDocumentKind = keyof typeof seriesOf;

/** What a document was issued for (`source_kind`); with `source_key`, unique per company and kind. */
export type TaxDocumentSource = 'rent_payment' | 'booking_payment' | 'booking_offline' | 'statement_fees' | 'job_charge';

/** The document's number of `sequence` in `series`: the series, a dash, the sequence on at least 6 digits. */
export const documentNumber = (series: string, sequence: number | bigint) => `${series}-${String(sequence).padStart(6, '0')}`;

/**
 * Why a document cannot be issued: the company is not registered for VAT on that day (no TRN, or before
 * `vat_registered_on`), or the settings an invoice needs are missing (its address), or the document is one no
 * e-invoice could carry. The supply is recorded all the same; the answer says why no invoice came with it.
 */
export type NotIssued = { issued: false; problems: Problem[] };

/**
 * The company as the seller of its invoices on `day`, from its settings (`trn`, `vat_registered_on`, `legal_name`,
 * `address`, `trade_licence`); {@link NotIssued} when it charges no VAT that day or an invoice's field is missing.
 */
export function sellerOf(company: Pick<Company, 'name' | 'settings'>, day: string): Seller | NotIssued {
  const settings = company.settings;
  if (!chargesVatOn(settings, day) || !settings.trn) {
    return {
      issued: false,
      problems: [{ path: 'settings.trn', code: 'not_registered', message: `The company is not registered for VAT on ${day}.` }],
    };
  }
  const problems: Problem[] = [];
  if (!settings.address) {
    problems.push({
      path: 'settings.address',
      code: 'address_missing',
      message: 'The company’s address (line 1, city, emirate) is needed on its tax invoices.',
    });
  }
  if (!settings.trade_licence) {
    problems.push({
      path: 'settings.trade_licence',
      code: 'trade_licence_missing',
      message: 'The company’s trade licence (number and authority) is needed on its tax invoices.',
    });
  }
  if (!settings.address || !settings.trade_licence) return { issued: false, problems };
  const { address, trade_licence } = settings;
  return {
    name: company.name,
    legalName: settings.legal_name ?? company.name,
    trn: settings.trn,
    address: {
      line1: address.line1,
      line2: address.line2 ?? null,
      city: address.city,
      subdivision: address.emirate,
      country: 'AE',
    },
    registration: { id: trade_licence.number, type: 'TL', authority: trade_licence.authority },
  };
}

/**
 * The buyer of a document. A buyer registered for VAT (its TRN known) gets a full tax invoice with its name and TRN; any
 * other buyer a simplified one (Federal Decree-Law No. 8 of 2017, Article 65; Executive Regulation, Article 60:
 * recipient details are not required), which names it only by our reference (`label` and the reference, e.g.
 * "Guest BK-7Q2M"): an invoice is kept for years after a person is erased, so a simplified one holds no personal data.
 * Its address is the home supplied (the place of supply: a private buyer's address is not kept).
 */
export function buyerOf(party: { label: string; reference: string; name: string | null; trn: string | null; address: Address }): {
  buyer: Buyer;
  simplified: boolean;
} {
  if (party.trn && party.name) {
    return {
      simplified: false,
      buyer: { name: party.name, trn: party.trn, reference: party.reference, address: party.address },
    };
  }
  return {
    simplified: true,
    buyer: { name: `${party.label} ${party.reference}`, reference: party.reference, address: party.address },
  };
}

/** The parts of a home's address a read statement gathers ({@link homeAddressJson}): English names. */
export type HomeAddressParts = { title: string | null; project: string | null; area: string | null; city: string | null };

/**
 * A home's address parts as a read statement selects them (json, null for no home): its English title, and the English
 * names of its project, area and city (the catalogue's named records).
 */
export function homeAddressJson(listingId: RawBuilder<unknown>) {
  return sql<HomeAddressParts | null>`(select json_build_object('title', l.title->>'en', 'project', p.name->>'en',
    'area', a.name->>'en', 'city', c.name->>'en') from listings l left join areas p on p.id = l.project_id
    left join areas a on a.id = l.area_id left join areas c on c.id = l.city_id where l.id = ${listingId})`;
}

/** The emirates by the English names of their cities (PINT AE codes, ibr-128-ae). */
const emirateOfCity: Readonly<Record<string, 'AUH' | 'DXB' | 'SHJ' | 'UAQ' | 'FUJ' | 'AJM' | 'RAK'>> = {
  dubai: 'DXB',
  'abu dhabi': 'AUH',
  'al ain': 'AUH',
  sharjah: 'SHJ',
  ajman: 'AJM',
  'umm al quwain': 'UAQ',
  'ras al khaimah': 'RAK',
  fujairah: 'FUJ',
};

/**
 * A home as an invoice's address (the place of supply; a private buyer's own address is not kept): line 1 its project
 * and area (else its title), its city, the emirate of that city, else the company's. `company` is the seller's address.
 */
export function homeAddress(parts: HomeAddressParts | null, company: Address): Address {
  const line1 = [parts?.project, parts?.area].filter(Boolean).join(', ') || parts?.title || company.line1;
  const city = parts?.city ?? company.city;
  return {
    line1,
    line2: null,
    city,
    subdivision: emirateOfCity[city.trim().toLowerCase()] ?? company.subdivision,
    country: 'AE',
  };
}

/** A document ready to issue: its id (the UUID, BTAE-07), the number's slot, the document and its XML with that slot. */
export type Prepared = {
  issued: true;
  id: string;
  slot: string;
  simplified: boolean;
  document: TaxDocument;
  xml: string;
};

/**
 * The document of `input` and its PINT AE XML, before its number: both hold a random slot where the number goes, which
 * the issuing statement replaces with the number it takes (no text of a document can hold the slot: it is drawn for
 * this document). {@link NotIssued} when no e-invoice could carry it (lib/einvoice, each problem at its field).
 */
export function prepareDocument(input: Omit<DocumentInput, 'number' | 'uuid'>, simplified: boolean): Prepared | NotIssued {
  const id = crypto.randomUUID();
  const slot = `N${randomToken(24)}N`;
  try {
    const document = taxDocument({ ...input, number: slot, uuid: id });
    return { issued: true, id, slot, simplified, document, xml: pintAeXml(document) };
  } catch (error) {
    if (error instanceof EinvoiceRefused) return { issued: false, problems: error.problems };
    throw error;
  }
}

/** What {@link issueCtes} writes: the prepared document, what it was issued for, and who caused it. */
export type Issue = {
  companyId: string;
  kind: TaxDocumentKind;
  prepared: Prepared;
  source: { kind: TaxDocumentSource; key: string };
  leaseId?: string | null;
  bookingId?: string | null;
  ownerId?: string | null;
  /** A credit note: the invoice it credits (its id and number). */
  credits?: { id: string; number: string } | null;
  causedBy: CausedBy;
};

/**
 * The CTEs `<name>_series`, `<name>_doc`, `<name>_event` and `<name>_deliveries` of a write statement: when the CTE
 * `source` (an earlier CTE of the statement: the change the document is for) has a row, the next number of the series
 * (the series' row locked until the transaction ends: numbers in issue order, no gap), the document with its number in
 * place of the slot, and `invoice.issued` or `credit_note.issued`. A second document for the same source fails the
 * statement on `tax_documents_source` (the write is run again and its read finds the first).
 */
export function issueCtes(name: string, source: string, issue: Issue): RawBuilder<unknown> {
  const { prepared, kind } = issue;
  const series = seriesOf[kind];
  const { totals } = prepared.document;
  const seriesCte = sql.raw(`${name}_series`);
  const docCte = sql.raw(`${name}_doc`);
  const number = sql`${series}::text || '-' || lpad(n.last_number::text, greatest(6, length(n.last_number::text)), '0')`;
  const data =
    kind === 'invoice'
      ? sql`jsonb_build_object('invoice_id', happened.id::text, 'reference', happened.number)`
      : sql`jsonb_build_object('credit_note_id', happened.id::text, 'reference', happened.number, 'invoice_reference', ${issue.credits?.number ?? null}::text)`;
  return sql`
    ${seriesCte} as (
      insert into tax_document_series as s (company_id, series, last_number)
      select ${issue.companyId}::uuid, ${series}, 1 from (select from ${sql.raw(source)} limit 1) as happened
      on conflict (company_id, series) do update set last_number = s.last_number + 1
      returning last_number
    ),
    ${docCte} as (
      insert into tax_documents (id, company_id, kind, series, sequence, number, type_code, simplified, issue_date,
        currency, net, vat, gross, source_kind, source_key, lease_id, booking_id, owner_id, credits_id, document, xml,
        einvoice_next_attempt_at)
      select ${prepared.id}::uuid, ${issue.companyId}::uuid, ${kind}, ${series}, n.last_number, num.number,
        ${prepared.document.typeCode}, ${prepared.simplified}, ${prepared.document.issueDate}::date,
        ${prepared.document.currency}, ${totals.net}::numeric, ${totals.vat}::numeric, ${totals.gross}::numeric,
        ${issue.source.kind}, ${issue.source.key}, ${issue.leaseId ?? null}::uuid, ${issue.bookingId ?? null}::uuid,
        ${issue.ownerId ?? null}::uuid, ${issue.credits?.id ?? null}::uuid,
        replace(${JSON.stringify(prepared.document)}, ${prepared.slot}, num.number)::jsonb,
        replace(${prepared.xml}::text, ${prepared.slot}, num.number), date_trunc('milliseconds', now())
      from ${seriesCte} as n cross join lateral (select ${number} as number) as num
      returning id, number
    ),
    ${eventCtes(name, newEventId(), { companyId: issue.companyId, type: kind === 'invoice' ? 'invoice.issued' : 'credit_note.issued', causedBy: issue.causedBy }, `${name}_doc`, data)}`;
}

/**
 * The issued document of a source, as a read statement selects it (null when none): its id, number, issue date and
 * document, for a credit note to reference and copy.
 */
export function issuedJson(companyId: string, kind: TaxDocumentKind, source: TaxDocumentSource, key: RawBuilder<unknown>) {
  return sql<IssuedDocument | null>`(select json_build_object('id', d.id, 'number', d.number, 'issue_date', d.issue_date::text,
    'document', d.document) from tax_documents d where d.company_id = ${companyId}::uuid and d.kind = ${kind}
    and d.source_kind = ${source} and d.source_key = ${key}::text)`;
}

/** An issued document as {@link issuedJson} reads it. */
export type IssuedDocument = { id: string; number: string; issue_date: string; document: TaxDocument };

/**
 * The lines of a credit note that credits `invoice` in full: the invoice's lines, each at its gross VAT included and its
 * rate, so the credit note's VAT is the invoice's to the fils (the same `vatOfLine` split).
 */
export function creditedLines(invoice: TaxDocument): LineInput[] {
  return invoice.lines.map((line) => ({
    description: line.description,
    name: line.name,
    quantity: line.quantity,
    unitCode: line.unitCode,
    amount: line.gross,
    basis: 'inclusive',
    category: line.category,
    rate: line.rate,
    exemptionReason: line.exemptionReason ?? null,
    serviceCode: line.serviceCode ?? null,
  }));
}

// ---- Several documents in one statement (issue 35: an owner's month of fees, issued when the month closes) ----

/** One of the documents {@link issueManyCtes} issues: an {@link Issue} and the condition on the statement's CTEs it waits for. */
export type ConditionalIssue = Issue & { when: RawBuilder<boolean> };

/**
 * The CTEs `<name>_want`, `<name>_series`, `<name>_numbered`, `<name>_doc`, `<name>_invoice_event` and
 * `<name>_credit_event` (with their deliveries) of a write statement issuing several documents: each whose `when` holds
 * (a condition on the statement's earlier CTEs, e.g. `exists (select from claimed where …)`) takes the next number of
 * its series in the order given. {@link issueCtes} takes one number per statement: a series' row is updated once by
 * one upsert here (by how many documents it issues: the row locked until the transaction ends, numbers in order, no
 * gap), since one statement may not update a row twice. The same unique source rule: a second document for a source
 * fails the statement.
 */
export function issueManyCtes(name: string, issues: readonly ConditionalIssue[]): RawBuilder<unknown> {
  const cte = (suffix: string) => sql.raw(`${name}_${suffix}`);
  const rows = issues.map((issue, ord) => {
    const { prepared, kind } = issue;
    const { totals } = prepared.document;
    return sql`select ${ord}::int as ord, ${seriesOf[kind]}::text as series, ${prepared.id}::uuid as id,
      ${issue.companyId}::uuid as company_id, ${kind}::text as kind, ${prepared.document.typeCode}::text as type_code,
      ${prepared.simplified}::boolean as simplified, ${prepared.document.issueDate}::date as issue_date,
      ${prepared.document.currency}::text as currency, ${totals.net}::numeric as net, ${totals.vat}::numeric as vat,
      ${totals.gross}::numeric as gross, ${issue.source.kind}::text as source_kind, ${issue.source.key}::text as source_key,
      ${issue.leaseId ?? null}::uuid as lease_id, ${issue.bookingId ?? null}::uuid as booking_id,
      ${issue.ownerId ?? null}::uuid as owner_id, ${issue.credits?.id ?? null}::uuid as credits_id,
      ${issue.credits?.number ?? null}::text as credits_number, ${JSON.stringify(prepared.document)}::text as document,
      ${prepared.xml}::text as xml, ${prepared.slot}::text as slot, ${newEventId()}::text as event_id
      where ${issue.when}`;
  });
  const first = issues[0];
  if (first === undefined) throw new Error('issueManyCtes: no document to issue');
  const { companyId, causedBy } = first;
  const want = sql.join(rows, sql` union all `);
  const number = sql`w.series || '-' || lpad(k.seq::text, greatest(6, length(k.seq::text)), '0')`;
  const data = (kind: TaxDocumentKind) =>
    kind === 'invoice'
      ? sql`jsonb_build_object('invoice_id', d.id::text, 'reference', d.number)`
      : sql`jsonb_build_object('credit_note_id', d.id::text, 'reference', d.number, 'invoice_reference', w.credits_number)`;
  return sql`
    ${cte('want')} as (${want}),
    ${cte('series')} as (
      insert into tax_document_series as s (company_id, series, last_number)
      select ${companyId}::uuid, w.series, count(*) from ${cte('want')} w group by w.series
      on conflict (company_id, series) do update set last_number = s.last_number + excluded.last_number
      returning series, last_number
    ),
    ${cte('numbered')} as (
      select w.ord, n.last_number - count(*) over (partition by w.series)
        + row_number() over (partition by w.series order by w.ord) as seq
      from ${cte('want')} w join ${cte('series')} n on n.series = w.series
    ),
    ${cte('doc')} as (
      insert into tax_documents (id, company_id, kind, series, sequence, number, type_code, simplified, issue_date,
        currency, net, vat, gross, source_kind, source_key, lease_id, booking_id, owner_id, credits_id, document, xml,
        einvoice_next_attempt_at)
      select w.id, w.company_id, w.kind, w.series, k.seq, num.number, w.type_code, w.simplified, w.issue_date,
        w.currency, w.net, w.vat, w.gross, w.source_kind, w.source_key, w.lease_id, w.booking_id, w.owner_id,
        w.credits_id, replace(w.document, w.slot, num.number)::jsonb, replace(w.xml, w.slot, num.number),
        date_trunc('milliseconds', now())
      from ${cte('want')} w join ${cte('numbered')} k on k.ord = w.ord
      cross join lateral (select ${number} as number) as num
      returning id, number, kind
    ),
    ${eventsCtes(
      `${name}_invoice`,
      { companyId, type: 'invoice.issued', causedBy },
      sql`select w.event_id as id, ${data('invoice')} as data
        from ${cte('doc')} d join ${cte('want')} w on w.id = d.id where d.kind = 'invoice'`,
    )},
    ${eventsCtes(
      `${name}_credit`,
      { companyId, type: 'credit_note.issued', causedBy },
      sql`select w.event_id as id, ${data('credit_note')} as data
        from ${cte('doc')} d join ${cte('want')} w on w.id = d.id where d.kind = 'credit_note'`,
    )}`;
}
