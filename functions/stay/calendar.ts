import { mergeRanges, nightsTaken, type Range } from '../../lib/calendar';

export type { Range } from '../../lib/calendar';

/**
 * The nights of [from, to) that are taken, read by {@link nightsTaken} with the same arguments: bookings that still
 * hold their dates (held until the hold lapses, confirmed until the payment window closes, paid), owner, maintenance
 * and imported blocks, and the nights the home's turnover keeps free around stays (lib/calendar.ts takenNights). Merged (overlapping and touching ranges become one),
 * clipped to the window, and without anything about the guests or why.
 * `exceptImport`: without that calendar import's blocks (the per-channel export feed); `exported`: the export feeds'
 * nights (turnover around bookings only).
 * `validUntil`: the first instant a hold or payment window in the answer lapses, after which it may change.
 */
export async function takenRanges(
  ...args: Parameters<typeof nightsTaken>
): Promise<{ ranges: Range[]; validUntil: Date | null }> {
  const [, , from, to] = args;
  const { stays, nights } = await nightsTaken(...args);
  let validUntil: Date | null = null;
  for (const { lapses_at } of stays) {
    const at = lapses_at === null ? null : new Date(lapses_at);
    if (at && (validUntil === null || at < validUntil)) validUntil = at;
  }
  return { ranges: mergeRanges(nights, from, to), validUntil };
}
