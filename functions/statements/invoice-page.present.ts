import { html } from 'hono/html';
import { formatDay } from '../../lib/display';
import type { TaxCategory } from '../../schema/common/tax';
import type { presentInvoice } from './invoices.present';
import { money, page, shortDay } from './page.present';
import type { PageLanguage } from './page-texts';

/**
 * A tax invoice or credit note as a printable page, in English or Arabic (right to left), from the very object the JSON
 * answer holds (presentInvoice): nothing is computed here, every amount is the document's, with its decimal string in
 * `data-amount`. The headings are those the FTA asks a tax invoice to show (Federal Decree-Law No. 8 of 2017, Art. 65;
 * Executive Regulation, Art. 59: the words "Tax Invoice", the supplier's name, address and TRN, the recipient's when
 * registered, the number, the date, the description, the rate and VAT of each supply, the total and its VAT).
 */

type InvoiceView = ReturnType<typeof presentInvoice>;

type Texts = {
  titles: { invoice: string; simplified: string; outOfScope: string; creditNote: string };
  number: string;
  issued: string;
  seller: string;
  buyer: string;
  trn: string;
  onBehalfOf: string;
  period: string;
  credits: string;
  reason: string;
  description: string;
  quantity: string;
  category: string;
  rate: string;
  net: string;
  vat: string;
  gross: string;
  totals: { net: string; vat: string; gross: string; paid: string; due: string };
  categories: Record<TaxCategory, string>;
  einvoice: string;
  print: string;
};

export const invoiceTexts: Record<PageLanguage, Texts> = {
  en: {
    titles: {
      invoice: 'Tax Invoice',
      simplified: 'Simplified Tax Invoice',
      outOfScope: 'Invoice',
      creditNote: 'Tax Credit Note',
    },
    number: 'Number',
    issued: 'Date of issue',
    seller: 'Supplier',
    buyer: 'Recipient',
    trn: 'TRN',
    onBehalfOf: 'Issued as agent on behalf of',
    period: 'Period of supply',
    credits: 'Credits the invoice',
    reason: 'Reason',
    description: 'Description',
    quantity: 'Quantity',
    category: 'VAT category',
    rate: 'Rate',
    net: 'Amount excl. VAT',
    vat: 'VAT',
    gross: 'Amount incl. VAT',
    totals: { net: 'Total excl. VAT', vat: 'Total VAT', gross: 'Total incl. VAT', paid: 'Paid', due: 'Amount due' },
    categories: { standard: 'Standard rated', zero_rated: 'Zero rated', exempt: 'Exempt', out_of_scope: 'Out of scope' },
    einvoice: 'E-invoice (PINT AE)',
    print: 'Print this page or save it as PDF from the browser’s print dialog.',
  },
  ar: {
    titles: {
      invoice: 'فاتورة ضريبية',
      simplified: 'فاتورة ضريبية مبسطة',
      outOfScope: 'فاتورة',
      creditNote: 'إشعار دائن ضريبي',
    },
    number: 'الرقم',
    issued: 'تاريخ الإصدار',
    seller: 'المورد',
    buyer: 'المستلم',
    trn: 'رقم التسجيل الضريبي',
    onBehalfOf: 'صادرة بصفة وكيل نيابةً عن',
    period: 'فترة التوريد',
    credits: 'يخص الفاتورة',
    reason: 'السبب',
    description: 'الوصف',
    quantity: 'الكمية',
    category: 'فئة الضريبة',
    rate: 'النسبة',
    net: 'المبلغ دون الضريبة',
    vat: 'ضريبة القيمة المضافة',
    gross: 'المبلغ شاملاً الضريبة',
    totals: {
      net: 'الإجمالي دون الضريبة',
      vat: 'إجمالي ضريبة القيمة المضافة',
      gross: 'الإجمالي شاملاً الضريبة',
      paid: 'المدفوع',
      due: 'المبلغ المستحق',
    },
    categories: {
      standard: 'خاضع للنسبة الأساسية',
      zero_rated: 'خاضع لنسبة الصفر',
      exempt: 'معفى',
      out_of_scope: 'خارج نطاق الضريبة',
    },
    einvoice: 'الفاتورة الإلكترونية (PINT AE)',
    print: 'اطبع هذه الصفحة أو احفظها بصيغة PDF من نافذة الطباعة في المتصفح.',
  },
};

function titleOf(view: InvoiceView, t: Texts): string {
  if (view.kind === 'credit_note') return t.titles.creditNote;
  if (view.type_code === '480') return t.titles.outOfScope;
  return view.simplified ? t.titles.simplified : t.titles.invoice;
}

/** The document's page in `language`. */
export function invoicePage(view: InvoiceView, language: PageLanguage) {
  const t = invoiceTexts[language];
  const title = titleOf(view, t);
  const party = (p: { name: string; trn: string | null; address: InvoiceView['seller']['address'] }, role: string) =>
    html`<dt>${role}</dt><dd data-party="${role}"><strong>${p.name}</strong><br>${p.address.line1}${p.address.line2 ? html`, ${p.address.line2}` : ''}, ${p.address.city}, ${p.address.subdivision}, ${p.address.country}${p.trn ? html`<br>${t.trn}: <bdi dir="ltr" data-trn>${p.trn}</bdi>` : ''}</dd>`;
  const lines = view.lines.map(
    (line, i) => html`<tr data-line="${String(i + 1)}">
<td>${line.description}</td><td class="amount"><bdi dir="ltr">${line.quantity}</bdi></td><td data-category="${line.category}">${t.categories[line.category]}</td><td class="amount">${line.rate === null ? '' : html`<bdi dir="ltr">${line.rate}%</bdi>`}</td>${money(line.net, view.currency, language)}${money(line.vat, view.currency, language, { vat: 'line' })}${money(line.gross, view.currency, language)}
</tr>`,
  );
  const total = (name: keyof Texts['totals'], cls = '') =>
    html`<tr class="${cls}"><th scope="row">${t.totals[name]}</th>${money(view.totals[name], view.currency, language, { total: name })}</tr>`;
  const body = html`<main data-number="${view.number}" data-kind="${view.kind}" data-type-code="${view.type_code}">
<h1>${title}</h1>
<dl>
<dt>${t.number}</dt><dd><bdi dir="ltr">${view.number}</bdi></dd>
<dt>${t.issued}</dt><dd data-issue-date="${view.issue_date}">${formatDay(view.issue_date, language)}</dd>
${party({ ...view.seller, name: view.seller.legal_name }, t.seller)}
${view.principal ? html`<dt>${t.onBehalfOf}</dt><dd data-principal><strong>${view.principal.name}</strong><br>${t.trn}: <bdi dir="ltr">${view.principal.trn}</bdi></dd>` : ''}
${party(view.buyer, t.buyer)}
${view.period ? html`<dt>${t.period}</dt><dd>${shortDay(view.period.start, language)} – ${shortDay(view.period.end, language)}</dd>` : ''}
${view.credits ? html`<dt>${t.credits}</dt><dd><bdi dir="ltr" data-credits>${view.credits}</bdi></dd>` : ''}
${view.credit_reason ? html`<dt>${t.reason}</dt><dd><code dir="ltr">${view.credit_reason}</code></dd>` : ''}
</dl>
<table data-lines>
<thead><tr><th>${t.description}</th><th class="amount">${t.quantity}</th><th>${t.category}</th><th class="amount">${t.rate}</th><th class="amount">${t.net}</th><th class="amount">${t.vat}</th><th class="amount">${t.gross}</th></tr></thead>
<tbody>${lines}</tbody>
</table>
<table data-totals="${view.currency}">
<tbody>
${total('net')}
${total('vat')}
${total('gross', 'net')}
${total('paid')}
${total('due', 'net')}
</tbody>
</table>
<p class="note">${t.einvoice}: <code dir="ltr">${view.id}</code></p>
<p class="note">${t.print}</p>
</main>`;
  return page(language, `${title} ${view.number}`, body);
}
