/**
 * The scale bench's portfolio, written in SQL (bench/scale.ts): leases `$2` to `$2 + $3 - 1` of a company, each with its
 * own renter, an owner for every 3 leases (a real portfolio: most owners let one to three homes), the company's homes
 * in turn (draft leases: a home's one active lease is a rule of the routes, not of a statement), and 12 monthly rent
 * payments each, due from ten months before the exported month to the month after it. Those due up to the exported
 * month are received as the receipt route leaves them (`booked_on` in the due month, `received_at` that day between
 * 08:00 and 18:00 in the company's time zone, the lease's 5 % fee rounded half-up, `updated_at` the receipt's
 * instant); 1 in 50 bounced the next day (`bounced_on`, `bounced_at`). The table's trigger (migration 0023 and its
 * later versions) writes the statement lines and owners' months of every receipt and bounce, as it does for the route.
 *
 * Parameters of each statement: $1 company id, $2 the first lease's index, $3 how many leases, and, where used,
 * $4 the first day of the exported month, $5 the company's time zone.
 */
export const scaleSeedSql = [
  // The owners of these leases (lease i's owner is i / 3; one may have been written with the previous leases).
  `insert into contacts (company_id, reference, name, roles)
   select $1::uuid, 'P-S' || lpad(k::text, 9, '0'), 'Scale owner ' || k, '{landlord}'
   from generate_series($2::int / 3, ($2::int + $3::int - 1) / 3) k
   on conflict (reference) do nothing`,
  `insert into contacts (company_id, reference, name, roles)
   select $1::uuid, 'P-R' || lpad(i::text, 9, '0'), 'Scale renter ' || i, '{tenant}'
   from generate_series($2::int, $2::int + $3::int - 1) i`,
  `with home as (
     select id, row_number() over (order by id) - 1 as h, count(*) over () as n
     from listings where company_id = $1::uuid
   ),
   lease as (
     select i, 5000 + (i % 40) * 250 as monthly from generate_series($2::int, $2::int + $3::int - 1) i
   )
   insert into leases (company_id, reference, listing_id, renter_id, landlord_id, status, starts_on, ends_on, rent_amount,
     rent_period, deposit_amount, notice_days, schedule_count, fee_kind, fee_value, created_at, updated_at)
   select $1::uuid, 'T-S' || lpad(lease.i::text, 9, '0'), home.id, renter.id, owner.id, 'draft',
     ($4::date - interval '10 months')::date, ($4::date + interval '2 months')::date - 1, lease.monthly * 12, 'year',
     lease.monthly, 90, 12, 'percent', 5, ($4::date - interval '11 months')::date, ($4::date - interval '11 months')::date
   from lease
   join home on home.h = lease.i % home.n
   join contacts renter on renter.reference = 'P-R' || lpad(lease.i::text, 9, '0')
   join contacts owner on owner.reference = 'P-S' || lpad((lease.i / 3)::text, 9, '0')`,
  `with lease as (
     select id, substr(reference, 4)::int as i, rent_amount / 12 as monthly
     from leases where company_id = $1::uuid and reference between 'T-S' || lpad($2::text, 9, '0')
       and 'T-S' || lpad(($2::int + $3::int - 1)::text, 9, '0')
   ),
   payment as (
     select lease.*, k, (($4::date + (k - 10) * interval '1 month')::date + (lease.i % 25))::date as due_on,
       k <= 10 as received, k <= 10 and (lease.i + k) % 50 = 0 as bounced
     from lease cross join generate_series(0, 11) k
   ),
   timed as (
     select p.*, case when p.received then p.due_on + (p.i % 3) end as booked_on
     from payment p
   ),
   stamped as (
     select t.*, (t.booked_on + interval '8 hours' + (t.i % 36000) * interval '1 second') at time zone $5::text as received_at,
       ((t.booked_on + 1) + interval '12 hours') at time zone $5::text as bounced_at
     from timed t
   )
   insert into rent_payments (company_id, lease_id, status, due_on, amount, cheque_number, cheque_bank, booked_on,
     fee_amount, received_at, bounced_on, bounced_at, created_at, updated_at)
   select $1::uuid, s.id, case when s.bounced then 'bounced' when s.received then 'received' else 'due' end, s.due_on,
     s.monthly, lpad((s.i * 12 + s.k)::text, 8, '0'),
     (array['Emirates NBD', 'Mashreq', 'Dubai Islamic Bank', 'Abu Dhabi Commercial Bank'])[s.i % 4 + 1],
     s.booked_on, case when s.received then round(s.monthly * 5 / 100, 2) end,
     case when s.received then s.received_at end,
     case when s.bounced then s.booked_on + 1 end, case when s.bounced then s.bounced_at end,
     ($4::date - interval '11 months')::date,
     case when s.bounced then s.bounced_at when s.received then s.received_at else ($4::date - interval '11 months')::date end
   from stamped s
   order by md5(s.i || ':' || s.k)`,
];
