import type { z } from '@hono/zod-openapi';
import { addDays, weekdayOf } from '../lib/dates';
import type { AvailabilitySchema } from '../schema/stay/bookings';

/**
 * Stays no two booking requests share, for the bench of POST /api/v1/bookings: every published holiday home's
 * calendar (its availability answer) is tiled with stays of its minimum length, arrival days and notice
 * respected, then the homes are taken in turn, so concurrent requests mostly book different homes.
 */
export type BenchStay = { listing: string; check_in: string; check_out: string };

type Availability = z.infer<typeof AvailabilitySchema>;

function tile(listing: string, a: Availability): BenchStay[] {
  const stays: BenchStay[] = [];
  // `from` is today in the company's time zone; a day more than the notice keeps every arrival clear of it.
  let day = addDays(a.from, Math.ceil(a.notice_hours / 24) + 1);
  if (a.available_from && day < a.available_from) day = a.available_from;
  const lastArrival = addDays(a.from, a.advance_days - 1);
  while (day <= lastArrival) {
    const end = addDays(day, a.min_nights);
    if (a.available_to && end > a.available_to) break;
    if (a.closed_arrival_days.includes(weekdayOf(day)) || a.blocked.some((b) => b.start < end && day < b.end)) {
      day = addDays(day, 1);
      continue;
    }
    stays.push({ listing, check_in: day, check_out: end });
    day = end;
  }
  return stays;
}

export async function benchStays(origin: string): Promise<BenchStay[]> {
  const list = await fetch(`${origin}/api/v1/listings?type=holiday_home&page_size=100`);
  if (list.status !== 200) throw new Error(`GET /api/v1/listings?type=holiday_home answered ${list.status}`);
  const homes = ((await list.json()) as { results: Array<{ slug: { en: string } }> }).results.map((l) => l.slug.en);
  const perHome = await Promise.all(
    homes.map(async (slug) => {
      const res = await fetch(`${origin}/api/v1/listings/${encodeURIComponent(slug)}/availability`);
      if (res.status !== 200) throw new Error(`availability of ${slug} answered ${res.status}`);
      return tile(slug, (await res.json()) as Availability);
    }),
  );
  const stays: BenchStay[] = [];
  for (let i = 0; perHome.some((s) => i < s.length); i++) {
    for (const s of perHome) if (s[i]) stays.push(s[i]!);
  }
  return stays;
}
