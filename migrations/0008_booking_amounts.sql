-- A booking's total is the sum of up to max_nights (1000) nightly prices and its fees, each up to numeric(14, 2):
-- it can be larger than any one price, so it is kept with no precision limit (the quote's arithmetic is exact and
-- already rounded to the currency's minor digits). Before, a stay of a very expensive home overflowed the column
-- and the request failed with a 500.
alter table bookings alter column total type numeric, alter column deposit type numeric;
