import { z } from '@hono/zod-openapi';
import { date } from '../common/homes';

/**
 * Guest registration of holiday-home stays (issue 37; docs/api-reference.md, "Guest registration"): what the stay page
 * takes of every guest and how it is checked, and the admin API's answers. Dubai's DET registers guests by a passport,
 * an Emirates ID or an ID card of another GCC state.
 */
export const documentTypes = ['passport', 'emirates_id', 'gcc_id'] as const;
export type DocumentType = (typeof documentTypes)[number];

/** ISO 3166-1 alpha-2: the nationalities a guest may give. */
export const countries = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC ' +
  'CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD ' +
  'GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH ' +
  'KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW ' +
  'MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC ' +
  'SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY ' +
  'UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

/** One registered guest, as kept (sealed) and as staff read it. */
export const RegisteredGuestSchema = z
  .object({
    name: z.string(),
    nationality: z.string().openapi({ description: 'ISO 3166-1 alpha-2.', example: 'AE' }),
    document_type: z.enum(documentTypes),
    document_number: z.string().openapi({
      description: 'An Emirates ID as `784-YYYY-NNNNNNN-N`; a passport or GCC ID in capitals, without spaces.',
    }),
    birth_date: date,
  })
  .openapi('RegisteredGuest');
export type RegisteredGuest = z.infer<typeof RegisteredGuestSchema>;

const registration = z.enum(['complete', 'incomplete', 'missing']).openapi({
  description:
    '`complete`: as many guests registered as the booking has; `incomplete`: fewer; `missing`: none (or the list was erased).',
});

/** A booking's registration as staff read it (audited: `personal_data.read`). */
export const GuestRegistrationSchema = z
  .object({
    reference: z.string(),
    registration,
    guests_expected: z.number().int(),
    guests_registered: z.number().int(),
    consent_version: z.string().nullable(),
    consent_at: z.string().nullable(),
    registered_at: z.string().nullable(),
    keep_until: date.nullable().openapi({ description: 'The check-out day plus five years: erased by scheduled work after.' }),
    erased_at: z.string().nullable(),
    guests: z.array(RegisteredGuestSchema),
  })
  .openapi('GuestRegistration');

/** A booking arriving on a day, with its registration's state (no guest data). */
export const ArrivalSchema = z
  .object({
    reference: z.string(),
    listing: z.string(),
    status: z.enum(['held', 'confirmed', 'paid']),
    check_in: date,
    check_out: date,
    registration,
    guests_expected: z.number().int(),
    guests_registered: z.number().int(),
  })
  .openapi('Arrival');

export const ArrivalsQuery = z.strictObject({
  arrival: date.openapi({ description: 'The check-in day (the company’s calendar).' }),
  registration: z
    .enum(['complete', 'incomplete', 'missing', 'not_complete'])
    .optional()
    .openapi({ description: '`not_complete`: `incomplete` or `missing`, the bookings staff must chase.' }),
});

export const DetExportQuery = z.strictObject({
  arrival: date.openapi({ description: 'The check-in day (the company’s calendar).' }),
});

/** A refused field of the form: its path (`guests[1].document_number`), a code and a sentence. */
export type GuestProblem = { path: string; code: string; message: string };

const maxName = 200;
const rowKey = /^guests\[(\d{1,3})\]\.(name|nationality|document_type|document_number|birth_date)$/;
const emiratesId = /^784-?(\d{4})-?(\d{7})-?(\d)$/;
const passport = /^[A-Z0-9]{5,20}$/;
const gccId = /^\d{8,12}$/;

/** The guests of a stay page's form and the consent, checked: the guests, or every problem at its field. */
export function readGuestForm(
  form: Record<string, unknown>,
  limits: { guests: number; today: string },
): { guests: RegisteredGuest[]; problems: GuestProblem[] } {
  const rows = new Map<number, Record<string, string>>();
  for (const [key, value] of Object.entries(form)) {
    const match = rowKey.exec(key);
    if (!match || typeof value !== 'string') continue;
    const index = Number(match[1]);
    const row = rows.get(index) ?? {};
    row[match[2] as string] = value.trim();
    rows.set(index, row);
  }
  const problems: GuestProblem[] = [];
  const guests: RegisteredGuest[] = [];
  // A row left empty is a guest not given (the form shows one row per guest of the booking).
  const filled = [...rows.entries()]
    .filter(([, row]) => ['name', 'document_number', 'birth_date'].some((field) => (row[field] ?? '') !== ''))
    .sort(([a], [b]) => a - b);
  if (filled.length === 0) {
    problems.push({ path: 'guests', code: 'guests_required', message: 'Give at least one guest.' });
  }
  if (filled.length > limits.guests) {
    problems.push({
      path: 'guests',
      code: 'too_many_guests',
      message: `The booking is for ${limits.guests} guest${limits.guests === 1 ? '' : 's'}; ${filled.length} were given.`,
    });
  }
  for (const [index, row] of filled) {
    const at = (field: string) => `guests[${index}].${field}`;
    const problem = (field: string, code: string, message: string) => problems.push({ path: at(field), code, message });
    const name = row.name ?? '';
    if (name === '') problem('name', 'required', 'Give the guest’s name as in the document.');
    else if (name.length > maxName) problem('name', 'too_long', `At most ${maxName} characters.`);
    const nationality = (row.nationality ?? '').toUpperCase();
    if (!countries.includes(nationality)) problem('nationality', 'invalid_nationality', 'Choose the guest’s nationality.');
    const type = row.document_type as DocumentType;
    const number = (row.document_number ?? '').toUpperCase().replace(/\s+/g, '');
    const documentNumber = checkDocument(type, number, (code, message) => problem('document_number', code, message));
    if (!documentTypes.includes(type)) problem('document_type', 'invalid_document_type', 'Choose the document type.');
    const born = row.birth_date ?? '';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(born) || Number.isNaN(Date.parse(`${born}T00:00:00Z`)) || born < '1900-01-01') {
      problem('birth_date', 'invalid_date', 'Give the date of birth as YYYY-MM-DD.');
    } else if (new Date(`${born}T00:00:00Z`).toISOString().slice(0, 10) !== born) {
      problem('birth_date', 'invalid_date', 'Give the date of birth as YYYY-MM-DD.');
    } else if (born > limits.today) {
      problem('birth_date', 'birth_date_in_future', 'The date of birth is in the future.');
    }
    if (documentNumber)
      guests.push({ name, nationality, document_type: type, document_number: documentNumber, birth_date: born });
  }
  if (form.consent !== 'yes') {
    problems.push({ path: 'consent', code: 'consent_required', message: 'Consent to the registration is needed.' });
  }
  return { guests, problems };
}

/** A document number in its kept form, or undefined with the problem said (a number of another document's kind). */
function checkDocument(type: DocumentType, number: string, problem: (code: string, message: string) => void) {
  if (number === '') return problem('required', 'Give the document’s number.');
  const id = emiratesId.exec(number);
  if (type === 'emirates_id') {
    if (id) return `784-${id[1]}-${id[2]}-${id[3]}`;
    // A mistyped Emirates ID (784 and digits) is said so; another document's number is said to be one.
    if (!/^784[\d-]*$/.test(number) && passport.test(number)) {
      return problem(
        'document_type_mismatch',
        'This looks like a passport number, not an Emirates ID (784-YYYY-NNNNNNN-N): choose Passport as the document.',
      );
    }
    return problem('invalid_document_number', 'An Emirates ID number has 15 digits: 784-YYYY-NNNNNNN-N.');
  }
  if (id) {
    return problem(
      'document_type_mismatch',
      'This is an Emirates ID number (784-YYYY-NNNNNNN-N): choose Emirates ID as the document.',
    );
  }
  if (type === 'passport') {
    if (passport.test(number)) return number;
    return problem('invalid_document_number', 'A passport number has 5 to 20 letters and digits.');
  }
  if (type === 'gcc_id') {
    if (gccId.test(number)) return number;
    if (/[A-Z]/.test(number) && passport.test(number)) {
      return problem(
        'document_type_mismatch',
        'This looks like a passport number, not a GCC ID card number (8 to 12 digits): choose Passport as the document.',
      );
    }
    return problem('invalid_document_number', 'A GCC ID card number has 8 to 12 digits.');
  }
  return undefined;
}
