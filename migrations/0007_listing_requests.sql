-- A draft listing made by staff from a listing request (a lead whose service is of kind listing_request)
-- remembers its lead. One draft per lead: the unique index refuses a second one, concurrent requests
-- included; deleting the draft lets staff make another. The link is kept on the listing rather than on the
-- lead, so making a draft does not write the lead: its updated_at, which sync clients pull by, stays put for
-- a change their answer does not show.
alter table listings add column from_lead_id uuid references leads (id) on delete set null;
create unique index listings_from_lead on listings (from_lead_id) where from_lead_id is not null;
