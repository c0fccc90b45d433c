import { csvField } from '../../lib/audit-export';
import { type Keyring, openSecret } from '../../lib/crypto-jwe';
import type { RegisteredGuest } from '../../schema/stay/guests';
import type { ArrivingRegistration } from './guests';

/**
 * The DET export of a day's arrivals (issue 37; docs/api-reference.md, "Guest registration"): one CSV line per
 * registered guest, the columns of the holiday-home portal's guest check-in as far as DET publishes them (its portal's
 * own import layout is not public: the columns and their names are this platform's assumption, documented there).
 */
export const detColumns = [
  'booking_reference',
  'permit_number',
  'property',
  'check_in',
  'check_out',
  'guest_no',
  'full_name',
  'nationality',
  'nationality_name',
  'document_type',
  'document_number',
  'date_of_birth',
] as const;

const documentNames = { passport: 'Passport', emirates_id: 'Emirates ID', gcc_id: 'GCC ID' } as const;
/** Made when a first export asks: ICU's region names load in tens of milliseconds, which `npm start` need not wait for. */
let countryNames: Intl.DisplayNames | undefined;
function countryName(code: string): string | undefined {
  countryNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
  return countryNames.of(code);
}

export async function detCsv(rows: ArrivingRegistration[], keyring: Keyring | undefined): Promise<string> {
  const lines = [detColumns.join(',')];
  for (const row of rows) {
    const guests = JSON.parse(await openSecret(keyring, row.guests_jwe, row.id)) as RegisteredGuest[];
    guests.forEach((guest, index) => {
      const cells = [
        row.reference,
        row.permit_number ?? '',
        row.title.en ?? '',
        row.check_in,
        row.check_out,
        String(index + 1),
        guest.name,
        guest.nationality,
        countryName(guest.nationality) ?? guest.nationality,
        documentNames[guest.document_type],
        guest.document_number,
        guest.birth_date,
      ];
      lines.push(cells.map(csvField).join(','));
    });
  }
  return `${lines.join('\r\n')}\r\n`;
}
