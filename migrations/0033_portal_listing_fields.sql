-- What the portals' feeds carry besides the catalogue's own fields (issue 32): the agent's licence number (in Dubai
-- the Broker Registration Number, BRN, that RERA issues; Property Finder's agent `license_no`), and per listing its
-- furnishing, the number of cheques a lease is paid in, the yearly service charge, and Bayut's off-plan details
-- (`offplanDetails_saleType`, `_dldWaiver`, `_originalPrice`, `_amountPaid`: docs/api-reference.md, "Portals and
-- advertising permits", cites both portals' formats). All optional: a listing without them is what it was.
--
-- Updates of these columns are updates of the listing or the team profile: the catalogue's version moves with them
-- (migration 0015's triggers), so the feeds' ETags do too.

alter table team_profiles
  add column licence_number text check (char_length(licence_number) between 1 and 64);

alter table listings
  add column furnished text check (furnished in ('furnished', 'partly_furnished', 'unfurnished')),
  -- A lease's rent in this many post-dated cheques (Property Finder: 1 to 12).
  add column cheques smallint check (cheques between 1 and 12),
  -- The yearly service charge, in the company's currency.
  add column service_charge numeric(14, 2) check (service_charge >= 0),
  add column offplan_sale_type text check (offplan_sale_type in ('new', 'resale')),
  -- The share of the Dubai Land Department's registration fee the developer waives, in percent (Bayut: 0 to 100).
  add column offplan_dld_waiver smallint check (offplan_dld_waiver between 0 and 100),
  add column offplan_original_price numeric(14, 2) check (offplan_original_price >= 0),
  add column offplan_amount_paid numeric(14, 2) check (offplan_amount_paid >= 0),
  add constraint listings_cheques_lease check (cheques is null or listing_type = 'lease'),
  -- Off-plan details only on an off-plan listing, and each sale type with what Bayut requires of it.
  add constraint listings_offplan_details check (
    (offplan_sale_type is null
      and offplan_dld_waiver is null and offplan_original_price is null and offplan_amount_paid is null)
    or (completion = 'off_plan' and (
      (offplan_sale_type = 'new' and offplan_dld_waiver is not null
        and offplan_original_price is null and offplan_amount_paid is null)
      or (offplan_sale_type = 'resale' and offplan_dld_waiver is null
        and offplan_original_price is not null and offplan_amount_paid is not null))));
