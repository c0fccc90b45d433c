import { readFileSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';
import type { TestApi } from '../support/harness';
import { demo } from '../support/harness';

/**
 * The portals' tests: each feed parsed by a well-kept XML parser (fast-xml-parser) and checked against the element
 * names and required fields of the portal's published format, as the fixture written from that format lists them
 * (test/portals/fixtures, never our own output).
 */

export type Portal = 'propertyfinder' | 'bayut';

type Spec = { fixture: string; root: string; item: string; rootAttributes: string[]; required: string[] };

export const specs: Record<Portal, Spec> = {
  propertyfinder: {
    fixture: 'test/portals/fixtures/propertyfinder.xml',
    root: 'list',
    item: 'property',
    rootAttributes: ['@_last_update', '@_listing_count'],
    required: [
      '@_last_update',
      'reference_number',
      'offering_type',
      'property_type',
      'size',
      'title_en',
      'description_en',
      'city',
      'community',
      'photo/url',
      'agent/id',
      'agent/name',
      'agent/email',
      'agent/phone',
    ],
  },
  bayut: {
    fixture: 'test/portals/fixtures/bayut.xml',
    root: 'Properties',
    item: 'Property',
    rootAttributes: [],
    required: [
      'Property_Ref_No',
      'Property_purpose',
      'Property_Type',
      'Property_Title',
      'Property_Description',
      'City',
      'Locality',
      'Price',
      'Images/Image',
      'Listing_Agent',
      'Listing_Agent_Phone',
      'Listing_Agent_Email',
    ],
  },
};

/** Every element is an array (a repeated element and a single one read alike); values stay text. */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

export type Node = Record<string, unknown>;

/** The names under a node, as paths (`agent/id`, `photo/url/@_last_updated`). */
function namesOf(node: Node, prefix = '', into = new Set<string>()): Set<string> {
  for (const [key, value] of Object.entries(node)) {
    if (key === '#text') continue;
    const name = `${prefix}${key}`;
    into.add(name);
    if (key.startsWith('@_')) continue;
    for (const child of value as unknown[])
      if (child !== null && typeof child === 'object') namesOf(child as Node, `${name}/`, into);
  }
  return into;
}

/** The text at a path of an item ('' when absent): the first value along the path. */
export function textAt(item: Node, path: string): string {
  let node: unknown = item;
  for (const part of path.split('/')) {
    if (node === null || typeof node !== 'object') return '';
    const value = (node as Node)[part];
    node = Array.isArray(value) ? value[0] : value;
  }
  if (typeof node === 'string') return node;
  if (node !== null && typeof node === 'object' && typeof (node as Node)['#text'] === 'string')
    return (node as Node)['#text'] as string;
  return '';
}

/** Every value at a path of an item (repeated elements). */
export function textsAt(item: Node, path: string): string[] {
  const [head, ...rest] = path.split('/');
  const value = item[head as string];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  if (rest.length === 0) return list.map((v) => (typeof v === 'string' ? v : ((v as Node)['#text'] as string)));
  return list.flatMap((v) => textsAt(v as Node, rest.join('/')));
}

function parsed(xml: string, portal: Portal) {
  expect(XMLValidator.validate(xml), 'well-formed XML').toBe(true);
  const doc = parser.parse(xml) as Node;
  const spec = specs[portal];
  const root = (doc[spec.root] as Node[] | undefined)?.[0];
  expect(root, `the root <${spec.root}>`).toBeDefined();
  const items = ((root as Node)[spec.item] as Node[] | undefined) ?? [];
  return { root: root as Node, items };
}

const fixtureNames = new Map<Portal, Set<string>>();

/** The names the portal's format has: those of its fixture (checked itself against the required fields once). */
function formatNames(portal: Portal): Set<string> {
  let names = fixtureNames.get(portal);
  if (!names) {
    const { items } = parsed(readFileSync(specs[portal].fixture, 'utf8'), portal);
    names = new Set<string>();
    for (const item of items) namesOf(item, '', names);
    fixtureNames.set(portal, names);
  }
  return names;
}

/**
 * A feed as the portal would read it: well-formed, its root as the format has it, each item with only the format's
 * names and every required field present and not empty. Answers the items.
 */
export function validateFeed(xml: string, portal: Portal): Node[] {
  const spec = specs[portal];
  const { root, items } = parsed(xml, portal);
  for (const attribute of spec.rootAttributes) expect(root[attribute], `<${spec.root} ${attribute}>`).toBeTruthy();
  const known = formatNames(portal);
  for (const item of items) {
    const unknown = [...namesOf(item)].filter((name) => !known.has(name));
    expect(unknown, `names the ${portal} format does not have`).toEqual([]);
    for (const path of spec.required) expect(textAt(item, path).trim(), `${portal} requires ${path}`).not.toBe('');
  }
  return items;
}

/** The fixture itself passes the validation (so the validation checks what the format says). */
export function validateFixture(portal: Portal): Node[] {
  return validateFeed(readFileSync(specs[portal].fixture, 'utf8'), portal);
}

const padding = ' Residents enjoy a pool, a gym, covered parking and direct access to the promenade and its cafés.';

let nextPermit = 7_100_000_000;

/** A listing every portal takes in a Dubai company: a Trakheesi permit, price, 3 photos, a long description, an agent. */
export function portalListing(slug: string, overrides: Record<string, unknown> = {}) {
  return {
    slug: { en: slug },
    listing_type: 'sale',
    status: 'published',
    title: { en: `Apartment ${slug}`, ar: `شقة ${slug}` },
    description: { en: `A bright two-bedroom apartment (${slug}) with a sea view.${padding}${padding}`, ar: 'شقة مشرقة' },
    price: '2450000.00',
    price_period: 'total',
    property_type: 'apartment',
    bedrooms: 2,
    bathrooms: 3,
    size_sqm: 128.5,
    city: 'dubai',
    area: 'dubai-marina',
    project: 'marina-gate',
    completion: 'ready',
    published_at: '2026-06-01T06:00:00Z',
    photos: ['living', 'kitchen', 'bedroom'].map((room) => ({ key: `${slug}/${room}`, alt: { en: room }, ready: true })),
    permit: { number: String(nextPermit++), authority: 'dld', expires_on: '2027-06-30' },
    agent: 'Sara Haddad',
    ...overrides,
  };
}

/** A Dubai company (market `dubai`) with the demo's places and team and the given listings; its host and feed URLs. */
export async function portalCompany(api: TestApi, listings: unknown[], settings: Record<string, unknown> = {}) {
  const company = await api.createCompany({ settings: { market: 'dubai', ...settings } });
  await api.importCatalogue(company.id, { areas: demo.areas, property_types: demo.property_types, team: demo.team, listings });
  const feeds = await api.admin(`/companies/${company.id}/portal-feeds`);
  expect(feeds.status, feeds.text).toBe(200);
  const path = (portal: Portal) =>
    new URL((feeds.json.results as Array<{ portal: string; url: string }>).find((f) => f.portal === portal)?.url ?? '').pathname;
  return { ...company, feed: { propertyfinder: path('propertyfinder'), bayut: path('bayut') } };
}

/** The reference a feed gives a listing: its id's hex digits. */
export const referenceOf = (id: string) => id.replaceAll('-', '');
