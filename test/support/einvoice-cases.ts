import type { Buyer, DocumentInput, Seller } from '../../lib/einvoice/document';

/**
 * The property cases of issue 35 as tax documents (test/platform/einvoice.test.ts renders and checks them). Parties,
 * TRNs, TINs, licences and accounts are invented, of the published shapes (docs/pint-ae.md); the commercial and
 * residential cases are the parties of test/fixtures/pint-ae/, so the two can be compared.
 */

export const manager: Seller = {
  name: 'Marina Bay Property Management',
  legalName: 'Marina Bay Property Management L.L.C.',
  trn: '100234567800003',
  address: { line1: 'Office 1402, Marina Plaza', city: 'Dubai', subdivision: 'DXB', country: 'AE' },
  registration: { id: 'TL-884412', type: 'TL', authority: 'Dubai Department of Economy and Tourism' },
};

export const falcon: Buyer = {
  name: 'Falcon Trading L.L.C.',
  trn: '100555666700003',
  tin: '1005556667',
  registration: { id: 'TL-552901', type: 'TL', authority: 'Dubai Department of Economy and Tourism' },
  address: { line1: 'Unit 12, Gate Avenue', city: 'Dubai', subdivision: 'DXB', country: 'AE' },
};

export const landlord = { name: 'Khalid Al Mansoori Real Estate', trn: '100876543200003' };

const transfer = {
  code: '30',
  account: { iban: 'AE070331234567890123456', name: 'Marina Bay Property Management client account' },
} as const;

/** Commercial rent billed for the landlord (disclosed agent) for a month (continuous supply): the fixture's case. */
export const commercialRent: DocumentInput = {
  kind: 'invoice',
  number: 'INV-2026-0042',
  uuid: '6f1d9c1e-2b7a-4c55-9e0f-3a8d7b2c4e10',
  issueDate: '2026-12-01',
  dueDate: '2026-12-15',
  currency: 'AED',
  seller: manager,
  principal: landlord,
  buyer: falcon,
  continuousSupply: true,
  period: { start: '2026-12-01', end: '2026-12-31', frequency: 'MTH' },
  contractReference: 'LEASE-MBT-1204',
  note: 'Tax invoice',
  lines: [
    {
      description: 'Office 804, Marina Business Tower: rent for December 2026',
      name: 'Commercial rent',
      quantity: '1',
      unitCode: 'MON',
      amount: '12500.00',
      basis: 'exclusive',
      category: 'standard',
      rate: '5',
      serviceCode: '997212',
    },
    {
      description: 'Parking bay B2-17, Marina Business Tower: December 2026',
      name: 'Parking',
      quantity: '1',
      unitCode: 'MON',
      amount: '350.00',
      basis: 'exclusive',
      category: 'standard',
      rate: '5',
      serviceCode: '997212',
    },
  ],
  payment: transfer,
};

/** A residential lease's exempt rent and a standard-rated fee (the district cooling recharge): 380 by ibr-151-ae. */
export const residentialLease: DocumentInput = {
  ...commercialRent,
  number: 'INV-2026-0043',
  uuid: '9a3b7e52-44c1-4d0f-b6a8-2e1f5c7d9b31',
  contractReference: 'LEASE-JLT-0311',
  lines: [
    {
      description: 'Apartment 2207, Lake Tower 3: rent for December 2026',
      name: 'Residential rent',
      quantity: '1',
      unitCode: 'MON',
      amount: '8000.00',
      basis: 'exclusive',
      category: 'exempt',
      rate: null,
      exemptionReason: 'DL8.46.2',
      serviceCode: '997211',
    },
    {
      description: 'District cooling for apartment 2207, Lake Tower 3: December 2026',
      name: 'District cooling recharge',
      quantity: '1',
      unitCode: 'MON',
      amount: '500.00',
      basis: 'exclusive',
      category: 'standard',
      rate: '5',
      serviceCode: '996912',
    },
  ],
};

/** A guest outside the e-invoicing mandate: no TRN, no TIN, our reference to them. */
export const guest: Buyer = {
  name: 'Amélie Dubois',
  reference: 'person_01JDW4G3T9',
  address: { line1: '14 rue des Lilas', city: 'Lyon', subdivision: 'Auvergne-Rhône-Alpes', country: 'FR' },
};

/** A holiday-home stay, paid by card when booked: 3 nights standard-rated (gross prices) and the Tourism Dirham (O). */
export const holidayStay: DocumentInput = {
  kind: 'invoice',
  number: 'INV-2026-0044',
  uuid: '3c9b1a77-5e2d-4f80-9b1c-6d2e8f4a7c55',
  issueDate: '2026-12-20',
  currency: 'AED',
  seller: manager,
  buyer: guest,
  period: { start: '2026-12-20', end: '2026-12-23' },
  lines: [
    {
      description: 'Stay at Palm Residence 5, villa 12: 20 to 23 December 2026',
      name: 'Holiday-home stay',
      quantity: '3',
      unitCode: 'DAY',
      amount: '2625.00',
      basis: 'inclusive',
      category: 'standard',
      rate: '5',
      serviceCode: '996311',
    },
    {
      description: 'Tourism Dirham, 3 nights, collected for Dubai Department of Economy and Tourism',
      name: 'Tourism Dirham',
      quantity: '3',
      unitCode: 'DAY',
      amount: '45.00',
      basis: 'exclusive',
      category: 'out_of_scope',
      rate: null,
    },
  ],
  paid: '2670.00',
  payment: { code: '48' },
};

/** The commercial invoice's rent cheque bounced: the rent credited (consideration altered), referencing the invoice. */
export const bouncedCheque: DocumentInput = {
  ...commercialRent,
  kind: 'credit_note',
  number: 'CN-2026-0007',
  uuid: '0c5e2a47-91d3-4f6b-8a2e-5d7c1b9e3f64',
  issueDate: '2026-12-10',
  dueDate: null,
  lines: [
    {
      ...(commercialRent.lines[0] as DocumentInput['lines'][number]),
      description: 'Cheque 000412 for December 2026 rent returned unpaid',
    },
  ],
  payment: null,
  note: 'Tax credit note',
  credit: { reason: 'DL8.61.1.C', invoice: { number: 'INV-2026-0042', issueDate: '2026-12-01' } },
};

/** A commercial tenant billed in Kuwaiti dinars (3 digits), with the rate to AED. */
export const kwdRent: DocumentInput = {
  ...commercialRent,
  number: 'INV-2026-0045',
  uuid: '7e4a2c19-0b6d-4a3e-8f51-2d9c7b1e6a08',
  currency: 'KWD',
  aedRate: '11.952381',
  lines: [
    { ...(commercialRent.lines[0] as DocumentInput['lines'][number]), amount: '1045.125' },
    { ...(commercialRent.lines[1] as DocumentInput['lines'][number]), amount: '29.275' },
  ],
};

/** The fixture's credit note: the parking bay of the commercial invoice, its supply cancelled. */
export const parkingCancelled: DocumentInput = {
  ...bouncedCheque,
  lines: [
    {
      ...(commercialRent.lines[1] as DocumentInput['lines'][number]),
      description: 'Parking bay B2-17, Marina Business Tower: December 2026, cancelled',
    },
  ],
  continuousSupply: false,
  period: null,
  contractReference: null,
  credit: { reason: 'DL8.61.1.A', invoice: { number: 'INV-2026-0042', issueDate: '2026-12-01' } },
};

/** A contractor's job, self-billed by the manager who bought it (PINT AE Self-billing, 389). */
export const selfBilledJob: DocumentInput = {
  kind: 'invoice',
  selfBilling: true,
  number: 'SB-2026-0003',
  uuid: 'b8d1e4f2-6a3c-4e97-a0b5-1c2d3e4f5a6b',
  issueDate: '2026-12-05',
  dueDate: '2026-12-20',
  currency: 'AED',
  seller: {
    name: 'Cool Breeze AC Services',
    legalName: 'Cool Breeze AC Services L.L.C.',
    trn: '100445566700003',
    address: { line1: 'Warehouse 7, Al Quoz 3', city: 'Dubai', subdivision: 'DXB', country: 'AE' },
    registration: { id: 'TL-771204', type: 'TL', authority: 'Dubai Department of Economy and Tourism' },
  },
  buyer: {
    name: manager.legalName,
    trn: manager.trn,
    tin: '1002345678',
    registration: manager.registration,
    address: manager.address,
  },
  lines: [
    {
      description: 'Air-conditioning repair, apartment 2207, Lake Tower 3',
      name: 'Repair',
      quantity: '1',
      unitCode: 'C62',
      amount: '840.00',
      basis: 'exclusive',
      category: 'standard',
      rate: '5',
      serviceCode: '998719',
    },
  ],
  payment: { code: '30', account: { iban: 'AE450260001015555555555', name: 'Cool Breeze AC Services' } },
};

/** KWD nets on a tie (x.xx5) for quantities they do not divide: where ibr-147-ae's floating point bites (lib/einvoice/price.ts). */
export const kwdTies: DocumentInput = {
  ...kwdRent,
  number: 'INV-2026-0046',
  uuid: '5a0c3e81-7d2b-4c69-9e14-8b3f6a2d0c57',
  lines: [
    ['0.955', '3'],
    ['0.225', '3'],
    ['13.375', '13'],
    ['30.625', '30'],
  ].map(([amount, quantity]) => ({
    ...(kwdRent.lines[1] as DocumentInput['lines'][number]),
    amount: amount as string,
    quantity: quantity as string,
    unitCode: 'DAY',
  })),
};
