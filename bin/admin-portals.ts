import { readFile } from 'node:fs/promises';

/** The portal commands of the admin CLI (bin/admin.ts): feed URLs, their rotation, the check, a listing's advertising. */
export const portalUsage = `  portals feeds <company> | portals rotate <company>   the Property Finder and Bayut feed URLs; a new token
  portals check <company> [--blocked]                  what keeps each listing off each portal
  advertising set <company> <slug> <file.json>         a listing's permit, agent_id and portals (PATCH body)`;

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Runs `portals …` or `advertising …`; undefined when the command is not one of them. */
export function portalCommand(
  command: string,
  arg: (i: number, what: string) => string,
  opts: { blocked?: boolean },
  call: Call,
): Promise<unknown> | undefined {
  const company = () => `/companies/${encodeURIComponent(arg(2, '<company>'))}`;
  switch (command) {
    case 'portals feeds':
      return call('GET', `${company()}/portal-feeds`);
    case 'portals rotate':
      return call('POST', `${company()}/portal-feeds/rotate`);
    case 'portals check':
      return call('GET', `${company()}/portal-check?page_size=100${opts.blocked ? '&blocked=true' : ''}`);
    case 'advertising set':
      return readFile(arg(4, '<file.json>'), 'utf8').then((text) =>
        call('PATCH', `${company()}/listings/${encodeURIComponent(arg(3, '<slug>'))}/advertising`, JSON.parse(text)),
      );
    default:
      return undefined;
  }
}
