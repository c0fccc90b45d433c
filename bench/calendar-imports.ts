import { createServer, type Server } from 'node:http';
import { addDays } from '../lib/dates';

/**
 * The calendar import's bench inputs (issue 39, "a calendar import sync of 50 events"): an Airbnb-shaped feed of 50
 * one-night events per holiday home, served on loopback by the bench (the demo company is a development workspace, so
 * the outbound rules let a sync fetch it), one import of it per home made through the admin API and synced once, so
 * each benched `POST …/calendar-imports/{id}/sync` moves its 50 events (each answer of a feed moves them all a day,
 * back and forth): 50 blocks updated, none added or removed. The events lie 600 to 700 days ahead: past the stays
 * the bookings bench tiles (the advance window), within the feeds' horizon (730 days), before the jobs' blocks (800).
 */
export type BenchImports = {
  /** The sync of the next import in turn (its admin path). */
  nextSync: () => string;
  close: () => Promise<void>;
};

export const importEvents = 50;
const firstDay = 600;

const compact = (date: string) => date.replaceAll('-', '');

/** The feed's answer: its events, a day on from the last answer's or back (so every sync moves all of them). */
function feed(today: string, home: number, turn: number): string {
  const lines = ['BEGIN:VCALENDAR', 'PRODID:-//Airbnb Inc//Hosting Calendar 1.0//EN', 'CALSCALE:GREGORIAN', 'VERSION:2.0'];
  for (let k = 0; k < importEvents; k++) {
    const start = addDays(today, firstDay + 2 * k + (turn % 2));
    lines.push(
      'BEGIN:VEVENT',
      `DTEND;VALUE=DATE:${compact(addDays(start, 1))}`,
      `DTSTART;VALUE=DATE:${compact(start)}`,
      `UID:bench-${home}-${k}@airbnb.com`,
      'SUMMARY:Reserved',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

export async function benchImports(origin: string, adminToken: string, companyId: string): Promise<BenchImports> {
  const today = new Date().toISOString().slice(0, 10);
  const turns = new Map<number, number>();
  const server: Server = createServer((req, res) => {
    const home = Number(/^\/feeds\/(\d+)\.ics$/.exec(req.url ?? '')?.[1] ?? Number.NaN);
    if (!Number.isInteger(home)) {
      res.writeHead(404).end();
      return;
    }
    const turn = turns.get(home) ?? 0;
    turns.set(home, turn + 1);
    res.writeHead(200, { 'Content-Type': 'text/calendar; charset=utf-8' }).end(feed(today, home, turn));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` };
    const list = await fetch(`${origin}/api/v1/listings?type=holiday_home&page_size=100`);
    const homes = ((await list.json()) as { results: Array<{ slug: { en: string } }> }).results.map((l) => l.slug.en);
    if (homes.length === 0) throw new Error('no holiday home to import a calendar for');
    const syncs: string[] = [];
    for (const [i, slug] of homes.entries()) {
      const base = `/admin/v1/companies/${companyId}/listings/${encodeURIComponent(slug)}/calendar-imports`;
      const url = `http://127.0.0.1:${port}/feeds/${i}.ics`;
      const made = await fetch(`${origin}${base}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url, channel: 'airbnb', interval_minutes: 1440 }),
      });
      if (made.status !== 201) throw new Error(`adding a calendar import answered ${made.status}: ${await made.text()}`);
      const path = `${base}/${((await made.json()) as { import_id: string }).import_id}/sync`;
      // The first sync adds the 50 blocks; the benched ones move them.
      const first = await fetch(`${origin}${path}`, { method: 'POST', headers });
      const synced = (await first.json()) as { event_count?: number; last_error?: string | null };
      if (first.status !== 200 || synced.event_count !== importEvents || synced.last_error) {
        throw new Error(`the first sync of ${slug} answered ${first.status}: ${JSON.stringify(synced)}`);
      }
      syncs.push(path);
    }
    let next = 0;
    return { nextSync: () => syncs[next++ % syncs.length]!, close };
  } catch (error) {
    await close();
    throw error;
  }
}
