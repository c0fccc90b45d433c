/**
 * What the tests of tax invoices share (issue 35): the company settings an invoice needs (docs/api-reference.md, "Tax
 * invoices and credit notes") beside a TRN of the published shape and a registration day.
 */
export const invoiceSettings = {
  trn: '100123456700003',
  vat_registered_on: '2018-01-01',
  legal_name: 'Marina Homes Property Management L.L.C.',
  address: { line1: 'Office 1204, Marina Plaza, Dubai Marina', city: 'Dubai', emirate: 'DXB' },
  trade_licence: { number: 'DED-774512', authority: 'Dubai Economy and Tourism' },
};
