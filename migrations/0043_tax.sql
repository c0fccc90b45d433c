-- Tax, first slice (issue 35; docs/api-reference.md, "Tax").
--
-- * `tax_rates`: the dated rates of the categories that carry one (standard, zero_rated), the operator's (admin API
--   `/tax-rates`). A row holds its rate from `valid_from` to `valid_to` (both included; null: open). Two rows of one
--   category never share a day: the exclusion constraint refuses the second, whatever ran at the same time. Seeded with
--   the UAE's rates since VAT began (Federal Decree-Law No. 8 of 2017, Article 3: 5 %; zero-rated supplies, Article 45:
--   0 %), both from 2018-01-01, the day the Decree-Law came into force. Exempt and out-of-scope supplies carry no rate.
-- * `listings.tax_category`, `leases.tax_category`: a category of their own for the rent, over the company's default
--   for the rent's kind (company settings `tax_categories`); null: that default.

create table tax_rates (
  id uuid primary key default gen_random_uuid(),
  category text not null check (category in ('standard', 'zero_rated')),
  rate numeric(7, 4) not null check (rate >= 0 and rate <= 100),
  valid_from date not null,
  valid_to date check (valid_to >= valid_from),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint tax_rates_no_overlap exclude using gist (category with =, daterange(valid_from, valid_to, '[]') with &&)
);

insert into tax_rates (category, rate, valid_from) values ('standard', 5, '2018-01-01'), ('zero_rated', 0, '2018-01-01');

alter table listings
  add column tax_category text check (tax_category in ('standard', 'zero_rated', 'exempt', 'out_of_scope'));
alter table leases
  add column tax_category text check (tax_category in ('standard', 'zero_rated', 'exempt', 'out_of_scope'));
