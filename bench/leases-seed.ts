/**
 * The lease bench's export volume, written in SQL (fast): `$3` received payments booked in each of two months, on the
 * bench's leases, as the receipt route leaves them: `booked_on` the day it counted (company time zone), `received_at`
 * that day between 08:00 and 18:00 in Dubai, `fee_amount` the leases' 5 % fee, rounded half-up like the route, and
 * `updated_at` the receipt's instant. In the later month 1 in 50 bounced afterwards (`bounced_on` ten days after the
 * receipt, at most yesterday), so its `updated_at` is the bounce's. Rows are stored in a shuffled order, as a table
 * written over time would be. The table's checks hold every row to the rules the routes follow.
 *
 * $1 company id, $2 the bench leases' listing id, $3 payments per month, $4 the first day of the earlier month,
 * $5 the first day of the later month (the one exported), $6 today in the company's time zone.
 */
export const insertReceivedSql = `
with lease as (
  select id, row_number() over (order by created_at, id) as i, count(*) over () as n
  from leases where company_id = $1::uuid and listing_id = $2::uuid
),
payment as (
  select m, n,
    month + ((n::bigint * 7919) % ((month + interval '1 month')::date - month))::int as booked_on,
    (5000 + (n % 40) * 250)::numeric(16, 4) as amount,
    m = 1 and n % 50 = 0 as bounced
  from generate_series(0, 1) m
  cross join lateral (select (case when m = 0 then $4::date else $5::date end) as month) start
  cross join generate_series(1, $3::int) n
),
timed as (
  select p.*,
    (p.booked_on + interval '8 hours' + (p.n % 36000) * interval '1 second') at time zone 'Asia/Dubai' as received_at,
    least(p.booked_on + 10, $6::date - 1) as bounced_on
  from payment p
)
insert into rent_payments (company_id, lease_id, status, due_on, amount, cheque_number, cheque_bank, booked_on, fee_amount,
  received_at, bounced_on, bounced_at, created_at, updated_at)
select $1::uuid, lease.id,
  case when t.bounced then 'bounced' else 'received' end,
  t.booked_on - (t.n % 3),
  t.amount,
  lpad((t.m * 1000000 + t.n)::text, 7, '0'),
  (array['Emirates NBD', 'Mashreq', 'Dubai Islamic Bank', 'Abu Dhabi Commercial Bank'])[t.n % 4 + 1],
  t.booked_on,
  round(t.amount * 5 / 100, 2),
  t.received_at,
  case when t.bounced then t.bounced_on end,
  case when t.bounced then (t.bounced_on + interval '12 hours') at time zone 'Asia/Dubai' end,
  t.received_at - interval '60 days',
  case when t.bounced then (t.bounced_on + interval '12 hours') at time zone 'Asia/Dubai' else t.received_at end
from timed t
join lease on lease.i = (t.n + t.m * 7) % lease.n + 1
order by md5(t.m || ':' || t.n)`;
