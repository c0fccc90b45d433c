-- Amounts in the currency's own minor digits (issue 32 defect 12, issue 33 "Money"; docs/api-reference.md, "Money").
--
-- ISO 4217 gives the dinars of Kuwait, Bahrain, Oman, Jordan, Tunisia and Libya (KWD, BHD, OMR, JOD, TND, LYD) three
-- minor digits, and two units of account (CLF, UYW) four; `numeric(14, 2)` kept every amount to the hundredth, so a
-- company in KWD lost its fils. Every money column becomes `numeric(16, 4)`: the same 12 digits before the point (the
-- largest amount stays below one trillion units) and room for the 4 digits after it that ISO 4217 gives any currency.
-- lib/money.ts keeps each amount to its currency's digits (`storedDigits`); the column only has to hold them.
--
-- Values are kept exactly (widening a scale never rounds). `bookings.total` and `deposit` are plain `numeric` since
-- migration 0008 and stay so. The owner statement lines' "never updated" trigger is a row trigger: a column's change
-- of type rewrites the table without firing it.

alter table listings
  alter column price type numeric(16, 4),
  alter column service_charge type numeric(16, 4),
  alter column offplan_original_price type numeric(16, 4),
  alter column offplan_amount_paid type numeric(16, 4);

alter table holiday_home_terms
  alter column weekend_price type numeric(16, 4),
  alter column cleaning_fee type numeric(16, 4),
  alter column tourism_fee_per_bedroom_night type numeric(16, 4),
  alter column deposit type numeric(16, 4);

alter table holiday_home_seasons
  alter column nightly_price type numeric(16, 4),
  alter column weekend_price type numeric(16, 4);

alter table leases
  alter column rent_amount type numeric(16, 4),
  alter column deposit_amount type numeric(16, 4),
  alter column fee_value type numeric(16, 4),
  alter column deposit_deductions type numeric(16, 4);

alter table lease_notices alter column proposed_rent type numeric(16, 4);

alter table rent_payments
  alter column amount type numeric(16, 4),
  alter column fee_amount type numeric(16, 4);

alter table maintenance_homes alter column approval_limit type numeric(16, 4);

alter table jobs alter column estimate type numeric(16, 4);

alter table job_charges alter column cost type numeric(16, 4);

alter table deals
  alter column value type numeric(16, 4),
  alter column commission type numeric(16, 4);

alter table owner_statement_lines alter column amount type numeric(16, 4);
