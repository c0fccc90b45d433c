/** The CRM bench's seed: 100,000 contacts (and leads, external ids) written in SQL, fast. */
export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const referencePattern = /^P-[0-9A-HJKMNP-TV-Z]{10}$/;

/**
 * 10 Crockford base-32 characters from a series number `n`: (n × an odd multiplier + an offset) mod 2^50 is a
 * bijection, so references are unique for every n and look random. `$n` is the SQL expression of n.
 */
export function referenceSql(prefix: 'P' | 'L', n: string, multiplier: bigint, offset: bigint): string {
  const value = `((${n})::bigint * ${multiplier} + ${offset}) & ${(1n << 50n) - 1n}`;
  return `'${prefix}-' || (select string_agg(substr('${CROCKFORD}', (((${value}) >> (5 * (9 - k))) & 31)::int + 1, 1), '' order by k) from generate_series(0, 9) k)`;
}
/** A contact's id from its series number (a UUID v4 shape), so leads and external ids can point at it. */
export const contactIdSql = (n: string) =>
  `overlay(overlay(md5('contact:' || ${n}) placing '4' from 13) placing '8' from 17)::uuid`;

export const firstNames =
  'Aisha,Omar,Fatima,Mohammed,Layla,Yousef,Mariam,Khalid,Noor,Hassan,Sara,Ahmed,Olivia,James,Emma,Liam,Sophie,Daniel,Anna,Ivan,Elena,Dmitri,Priya,Arjun,Chloe,Lucas,Mia,Noah,Hana,Kenji,Zara,Rami,Lina,Tariq,Julia,Marco,Ines'.split(
    ',',
  );
export const lastNames =
  "Al Mansouri,Haddad,Khan,Rahman,Nasser,Al Hashimi,Farouk,Saleh,Smith,Johnson,Brown,Williams,Taylor,Müller,Schmidt,Ivanova,Petrov,Sharma,Patel,Nair,Dubois,Martin,Rossi,Bianchi,Tanaka,Sato,Kim,Park,Silva,Costa,O'Brien,Murphy,Novak".split(
    ',',
  );
export const sqlArray = (values: string[]) => `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;

/**
 * The contacts: realistic names, emails (mixed case; `email_key` lower-cased), E.164 phones (UAE mobiles, some
 * UK), languages, roles; 1 in 11 without email, 1 in 7 without phone, 1 in 250 erased (personal fields empty).
 * updated_at is spread over a day from $3, in series order but with groups of 10 equal timestamps (n % 100 < 10)
 * for the id tie-break, and rows are stored in a shuffled order, as a table written over time would be.
 */
export const insertContactsSql = `
insert into contacts (id, company_id, reference, name, email, email_key, phone, phone_key, language, roles, erased,
  erased_at, created_at, updated_at)
select s.id, $1::uuid, s.reference,
  case when s.erased then null else s.first || ' ' || s.last end,
  case when s.erased or s.n % 11 = 0 then null else s.email end,
  case when s.erased or s.n % 11 = 0 then null else lower(s.email) end,
  case when s.erased or s.n % 7 = 0 then null else s.phone end,
  case when s.erased or s.n % 7 = 0 then null else s.phone end,
  case when s.erased then null else (array['en', 'ar', 'en', 'ru', 'en', 'fr', 'de', null])[s.n % 8 + 1] end,
  case when s.erased then '{}'::text[] else (case s.n % 6 when 0 then '{}'::text[] when 1 then array['buyer']
    when 2 then array['tenant'] when 3 then array['owner'] when 4 then array['buyer', 'investor'] else array['landlord'] end) end,
  s.erased,
  case when s.erased then s.updated_at end,
  s.updated_at - ((s.n * 13) % 400) * interval '1 day' - ((s.n * 7) % 86400) * interval '1 second',
  s.updated_at
from (
  select n,
    ${contactIdSql('n')} as id,
    ${referenceSql('P', 'n', 0x1f3a5c7e9b1dn, 0x2a5f3c1b7d9e5n)} as reference,
    f.first, l.last,
    -- As people type them (Aisha.AlMansouri123@gmail.com); email_key is the lower-cased form, as the API keeps it.
    f.first || '.' || translate(l.last, 'ü ''', 'u') || n || '@' ||
      (array['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com', 'emirates.net.ae', 'example.co.uk'])[n % 6 + 1] as email,
    case when n % 10 = 9
      then '+447' || lpad(((n::bigint * 7919) % 1000000000)::text, 9, '0')
      else '+9715' || (array['0', '2', '4', '5', '6', '8'])[n % 6 + 1] || lpad(((n::bigint * 7919) % 10000000)::text, 7, '0')
    end as phone,
    $3::timestamptz + t * ((86400000000 / $2::bigint) * interval '1 microsecond') + ((t * 37) % 1000) * interval '1 microsecond'
      as updated_at,
    n % 250 = 0 as erased
  from generate_series(1, $2::int) n
  cross join lateral (select case when n % 100 < 10 then n - n % 10 else n end as t) tie
  cross join lateral (select (${sqlArray(firstNames)})[n % ${firstNames.length} + 1] as first) f
  cross join lateral (select (${sqlArray(lastNames)})[(n / ${firstNames.length}) % ${lastNames.length} + 1] as last) l
) s
order by md5(s.n::text)`;

/** Leads for 1 contact in 10 (a second one for 1 in 100), the way the forms write them (no details). */
export const insertLeadsSql = `
insert into leads (company_id, reference, contact_id, status, service, form, message, language, caused_by,
  first_answered_at, created_at, updated_at)
select $1::uuid,
  ${referenceSql('L', 'n * 2 + j', 0x16b2d4f8a3c7n, 0x1c3e5a7b9d2f1n)},
  ${contactIdSql('n')},
  (array['new', 'contacted', 'qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'])[(n + j) % 8 + 1],
  (array['buy', 'rent', 'sell', 'valuation'])[n % 4 + 1],
  (array['enquiry', 'viewing', 'callback'])[n % 3 + 1],
  'Interested in a ' || (n % 4 + 1) || '-bedroom home; please call back.',
  (array['en', 'ar', 'ru'])[n % 3 + 1],
  'website',
  case when (n + j) % 8 > 0 then $3::timestamptz + n * interval '1 second' + interval '2 hours' end,
  $3::timestamptz + n * interval '1 second' + j * interval '1 minute',
  $3::timestamptz + n * interval '1 second' + j * interval '1 minute' + interval '3 hours'
from generate_series(1, $2::int) n
cross join generate_series(1, 2) j
where n % 10 = 3 and (j = 1 or n % 100 = 3)`;

/** External ids kept by the client's CRM for 1 contact in 10 (HubSpot), a second one for 1 in 50 (Salesforce). */
export const insertExternalSql = `
insert into external_ids (company_id, record_type, source, external_id, record_id, created_at)
select $1::uuid, 'contact', 'hubspot', (5000000 + n)::text, ${contactIdSql('n')}, $3::timestamptz + n * interval '1 second'
from generate_series(1, $2::int) n where n % 10 = 7
union all
select $1::uuid, 'contact', 'salesforce', '003' || upper(substr(md5('sf:' || n), 1, 15)), ${contactIdSql('n')},
  $3::timestamptz + n * interval '1 second' + interval '1 minute'
from generate_series(1, $2::int) n where n % 50 = 17`;
