import type { Services } from '../../lib/env';
import { quoteOf, stayFacts } from '../../lib/stay/quote';
import type { Company } from '../../schema/platform/db';

/** A quote (`GET /listings/{slug}/quote`) by the services' clock: one statement reads the home, terms, seasons, taken nights. */
export async function quoteStay(
  services: Services,
  company: Company,
  slug: string,
  query: { check_in: string; check_out: string; guests: number },
) {
  const { check_in, check_out, guests } = query;
  const stay = { checkIn: check_in, checkOut: check_out, guests };
  const now = services.now();
  const facts = await stayFacts(services.db, company, slug, stay, now);
  return { listing: facts.home.slug, check_in, check_out, guests, ...quoteOf(company, facts, stay, now) };
}
