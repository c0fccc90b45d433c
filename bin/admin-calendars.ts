/** The calendar-import commands of the admin CLI (bin/admin.ts): channels' iCalendar feeds per holiday home (issue 24). */
export const calendarUsage = `  calendars list <company> <listing>            a home's imported calendars and their health
  calendars add <company> <listing> --url U --channel NAME [--interval MINUTES]   (default 10, not less than 5)
  calendars sync <company> <listing> <import-id>   sync at once (\`last_error\` says why one failed)
  calendars remove <company> <listing> <import-id> the import and its blocks`;

export type CalendarOptions = { url?: string; channel?: string; interval?: string };

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Runs `calendars …`; undefined when the command is not one of them. */
export function calendarCommand(
  command: string,
  arg: (i: number, what: string) => string,
  opts: CalendarOptions,
  call: Call,
): Promise<unknown> | undefined {
  const imports = () =>
    `/companies/${encodeURIComponent(arg(2, '<company>'))}/listings/${encodeURIComponent(arg(3, '<listing>'))}/calendar-imports`;
  const one = () => `${imports()}/${encodeURIComponent(arg(4, '<import-id>'))}`;
  switch (command) {
    case 'calendars list':
      return call('GET', imports());
    case 'calendars add':
      return call('POST', imports(), {
        url: opts.url,
        channel: opts.channel,
        // A number when it reads as one; otherwise sent as given, for the API to refuse with its own problem.
        ...(opts.interval !== undefined
          ? { interval_minutes: /^\d+$/.test(opts.interval) ? Number(opts.interval) : opts.interval }
          : {}),
      });
    case 'calendars sync':
      return call('POST', `${one()}/sync`);
    case 'calendars remove':
      return call('DELETE', one());
    default:
      return undefined;
  }
}
