import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import {
  documentNumberParam,
  documentPathParam,
  InvoiceListQuery,
  InvoiceListSchema,
  InvoiceSchema,
  PageQuery,
} from '../../schema/statements/invoices';
import { invoicePage } from './invoice-page.present';
import { pageHeaders } from './page.present';
import { invoiceByNumber, invoiceXml, listInvoices } from './invoices';
import { presentInvoice } from './invoices.present';
import { statementsRoute } from './statements.routes';

const listRoute = statementsRoute('read:invoices', {
  method: 'get',
  path: '/invoices',
  operationId: 'listInvoices',
  summary: 'Tax invoices and credit notes, newest first',
  description:
    'Every document the company issued: a tax invoice for each taxable supply when it happened (a standard- or zero-rated rent receipt, a booking paid, an owner’s month of fees, a job charge recharged), a credit note for each reversal (a bounce, a cancellation, a refund). Numbered without gaps per series (`INV-…`, `CRN-…`) in issue order; never changed once issued.',
  request: { query: InvoiceListQuery },
  responses: { 200: json(InvoiceListSchema, 'A page of documents') },
});

const oneRoute = statementsRoute('read:invoices', {
  method: 'get',
  path: '/invoices/{number}',
  operationId: 'getInvoice',
  summary: 'A tax invoice or credit note by its number',
  description:
    'The document as issued: parties, lines with their VAT, totals, and the state of its e-invoice at the company’s Accredited Service Provider. 404 for a number this company never issued.',
  request: { params: documentPathParam },
  responses: { 200: json(InvoiceSchema, 'The document') },
});

const xmlRoute = statementsRoute('read:invoices', {
  method: 'get',
  path: '/invoices/{number}.xml',
  operationId: 'getInvoiceXml',
  summary: 'A tax invoice or credit note as its PINT AE e-invoice (UBL 2.1 XML)',
  description:
    'The e-invoice exactly as it was issued and handed to the company’s Accredited Service Provider: a UBL 2.1 Invoice or CreditNote under OpenPeppol’s PINT AE (docs/pint-ae.md). The same bytes on every read.',
  request: { params: documentNumberParam },
  responses: {
    200: {
      description: 'The e-invoice',
      content: {
        'application/xml': { schema: z.string().openapi({ example: '<?xml version="1.0" encoding="UTF-8"?>\n<Invoice …' }) },
      },
    },
  },
});

const pageRoute = statementsRoute('read:invoices', {
  method: 'get',
  path: '/invoices/{number}/page',
  operationId: 'getInvoicePage',
  summary: 'A tax invoice or credit note as a printable page, in English or Arabic',
  description:
    'The same document as the JSON, as HTML to print or save as PDF: the headings the FTA asks of a tax invoice (“Tax Invoice”, “Simplified Tax Invoice”, “Tax Credit Note”), the supplier and its TRN, the recipient (its TRN when registered), each line with its rate and VAT, the totals. `language=ar`: in Arabic, right to left (amounts and numbers in Latin digits).',
  request: { params: documentNumberParam, query: PageQuery },
  responses: {
    200: { description: 'The page', content: { 'text/html': { schema: z.string().openapi({ example: '<!doctype html>…' }) } } },
  },
});

const listDocuments: Handler<typeof listRoute> = async function listDocuments(c) {
  const page = await listInvoices(c.var.services.db, c.var.company, c.req.valid('query'));
  return c.json({ results: page.rows.map(presentInvoice), next_cursor: page.next_cursor }, 200);
};

/** `{number}` and `{number}.xml` share Hono's path (a parameter cannot end in a suffix there): the suffix picks the answer. */
const getDocument: Handler<typeof oneRoute> = async function getDocument(c) {
  const { number: raw } = c.req.valid('param');
  const { db } = c.var.services;
  if (raw.endsWith('.xml')) {
    const number = raw.slice(0, -'.xml'.length);
    const xml = await invoiceXml(db, c.var.company, number);
    return c.body(xml, 200, {
      'Content-Type': 'application/xml; charset=utf-8',
      'Content-Disposition': `inline; filename="${number}.xml"`,
    }) as never;
  }
  return c.json(presentInvoice(await invoiceByNumber(db, c.var.company, raw)), 200);
};

const getPage: Handler<typeof pageRoute> = async function getPage(c) {
  const row = await invoiceByNumber(c.var.services.db, c.var.company, c.req.valid('param').number);
  return c.html(invoicePage(presentInvoice(row), c.req.valid('query').language), 200, pageHeaders);
};

export const invoices = createRouter()
  .openapi(listRoute, listDocuments)
  .openapi(pageRoute, getPage)
  .openapi(oneRoute, getDocument);
// Declared in the document only: `getDocument` answers it (its middleware, the access check, is the same).
const { middleware: _sharedWithOneRoute, ...xmlDeclaration } = xmlRoute;
invoices.openAPIRegistry.registerPath(xmlDeclaration);
