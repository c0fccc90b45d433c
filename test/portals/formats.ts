import { readFileSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

/**
 * The portals' published formats, as the tests read a feed: parsed by a well-kept XML parser (fast-xml-parser) and
 * checked against each format's element names (those of its fixture, test/portals/fixtures, written from the format,
 * never from our output), required fields, allowed values and the rules between fields that the format states
 * (docs/api-reference.md, "Portals and advertising permits", cites both formats).
 */

export type Portal = 'propertyfinder' | 'bayut';
export type Node = Record<string, unknown>;

/** What a feed is checked with besides its format: whether its company hides prices (then none may be sent). */
export type FeedOptions = { pricesHidden?: boolean };

type Spec = {
  fixture: string;
  root: string;
  item: string;
  rootAttributes: string[];
  required: string[];
  /** The values a path may take (every value of a repeated element). */
  values: Record<string, readonly string[]>;
  /** Paths that hold a number without separators. */
  numbers: string[];
  /** The format's rules between fields: each broken one named. */
  rules(item: Node, options: FeedOptions): string[];
};

const timestamp = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const number = /^\d+(\.\d+)?$/;

/** Property Finder's property types (its format's full list). */
// biome-ignore format: the format's list, as it prints it
const propertyFinderTypes = [
  'AP', 'BU', 'BW', 'CD', 'DX', 'FA', 'FM', 'FF', 'HA', 'HF', 'LC', 'LP', 'OF', 'BC', 'PH', 'RE', 'RT', 'ST', 'TH', 'VH',
  'SA', 'WB', 'SH', 'SR', 'CW', 'WH',
] as const;

/** Property Finder's minimum prices, by offering type and period (its format's "Minimum Values"). */
const propertyFinderMinimums: Record<string, Record<string, number>> = {
  RS: { total: 100_000 },
  CS: { total: 100_000 },
  RR: { yearly: 10_000, monthly: 1_000, weekly: 1_000, daily: 100 },
  CR: { yearly: 10_000, monthly: 1_000 },
};

/** Property Finder's image formats, and at most this many a listing. */
const propertyFinderImage = /^https:\/\/.+\.(jpe?g|png|bmp|gif)$/i;
const propertyFinderMaxImages = 10;

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
    values: {
      offering_type: ['RR', 'RS', 'CR', 'CS'],
      property_type: propertyFinderTypes,
      price_on_application: ['Yes', 'No'],
      furnished: ['Yes', 'No', 'Partly'],
      completion_status: ['completed', 'off_plan', 'completed_primary', 'off_plan_primary'],
    },
    numbers: ['size', 'service_charge', 'cheques', 'bedroom', 'bathroom', 'plot_size', 'agent/phone'],
    rules(item, options) {
      const broken: string[] = [];
      const offering = textAt(item, 'offering_type');
      const rental = offering === 'RR' || offering === 'CR';
      if (!timestamp.test(textAt(item, '@_last_update'))) broken.push('last_update is YYYY-MM-DD HH:MM:SS');
      // The price: none on application (and none while the company hides prices), else one by the offering's kind.
      const onApplication = textAt(item, 'price_on_application') === 'Yes';
      const price = (item.price as unknown[] | undefined)?.[0];
      if (options.pricesHidden && !onApplication) broken.push('hidden prices: price_on_application is Yes');
      if (onApplication && price !== undefined) broken.push('a price on application sends no price');
      if (!onApplication && price === undefined) broken.push('price is required unless on application');
      if (price !== undefined) {
        // A sale's price is one number; a rental's names its periods (yearly, monthly, weekly, daily).
        const single = typeof price === 'string';
        if (single === rental) broken.push(rental ? 'a rental price names its period' : 'a sale price is one number');
        const amounts: Array<[string, string]> = single
          ? [['total', price]]
          : Object.entries(price as Node)
              .filter(([key]) => key !== '#text')
              .map(([period, values]) => [period, textAt({ v: values }, 'v')]);
        for (const [period, value] of amounts) {
          const minimum = propertyFinderMinimums[offering]?.[period];
          if (minimum === undefined) broken.push(`no ${period} price for ${offering}`);
          else if (!number.test(value) || Number(value) < minimum)
            broken.push(`${offering} ${period} price ${value} < ${minimum}`);
        }
      }
      const cheques = textAt(item, 'cheques');
      if (cheques !== '' && (!rental || Number(cheques) < 1 || Number(cheques) > 12)) broken.push('cheques: 1 to 12, rentals');
      const photos = textsAt(item, 'photo/url');
      if (photos.length > propertyFinderMaxImages) broken.push(`at most ${propertyFinderMaxImages} photos`);
      for (const url of photos) if (!propertyFinderImage.test(url)) broken.push(`a photo in jpg, png, bmp or gif: ${url}`);
      for (const url of (item.photo as Node[] | undefined)?.flatMap((p) => p.url as Node[]) ?? [])
        if (!timestamp.test(String(url['@_last_updated'] ?? ''))) broken.push('a photo’s last_updated');
      if (!textAt(item, 'agent/email').includes('@')) broken.push('the agent’s email');
      const geopoints = textAt(item, 'geopoints');
      if (geopoints !== '' && !/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/.test(geopoints)) broken.push('geopoints: longitude,latitude');
      return broken;
    },
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
      'Images/Image',
      'Listing_Agent',
      'Listing_Agent_Phone',
      'Listing_Agent_Email',
    ],
    values: {
      Property_Status: ['live', 'deleted'],
      Property_purpose: ['Buy', 'Rent'],
      Property_Size_Unit: ['SQFT'],
      Rent_Frequency: ['Daily', 'Weekly', 'Monthly', 'Yearly'],
      Furnished: ['Yes', 'No', 'Partly'],
      Off_plan: ['Yes', 'No'],
      offplanDetails_saleType: ['New', 'Resale'],
      'Portals/Portal': ['Bayut', 'dubizzle'],
    },
    numbers: [
      'Price',
      'Property_Size',
      'Bedrooms',
      'Bathrooms',
      'plotArea',
      'offplanDetails_dldWaiver',
      'offplanDetails_originalPrice',
      'offplanDetails_amountPaid',
    ],
    rules(item, options) {
      const broken: string[] = [];
      const has = (path: string) => textAt(item, path).trim() !== '';
      // The price: required (Bayut names no price on request), except that a company hiding prices sends none.
      if (options.pricesHidden) {
        if (has('Price') || has('Rent_Frequency')) broken.push('hidden prices: no Price, no Rent_Frequency');
      } else {
        if (!has('Price')) broken.push('Price is required');
        if (textAt(item, 'Property_purpose') === 'Rent' && !has('Rent_Frequency')) broken.push('a rent names its frequency');
      }
      if (textAt(item, 'Property_purpose') === 'Buy' && has('Rent_Frequency')) broken.push('a sale has no rent frequency');
      // Off-plan details (Bayut's help centre): the sale type on every off-plan property, with what each type requires.
      const details = ['saleType', 'dldWaiver', 'originalPrice', 'amountPaid'].filter((d) => has(`offplanDetails_${d}`));
      const saleType = textAt(item, 'offplanDetails_saleType');
      if (textAt(item, 'Off_plan') !== 'Yes') {
        if (details.length > 0) broken.push('off-plan details on a property that is not off-plan');
      } else if (saleType === 'New') {
        const waiver = textAt(item, 'offplanDetails_dldWaiver');
        if (!/^\d+$/.test(waiver) || Number(waiver) > 100) broken.push('a New off-plan sale: dldWaiver 0 to 100');
      } else if (saleType === 'Resale') {
        if (!has('offplanDetails_originalPrice') || !has('offplanDetails_amountPaid'))
          broken.push('a Resale off-plan sale: originalPrice and amountPaid');
      } else broken.push('an off-plan property: offplanDetails_saleType');
      for (const url of textsAt(item, 'Images/Image')) if (!url.startsWith('https://')) broken.push(`an https image: ${url}`);
      if (has('Last_Updated') && !timestamp.test(textAt(item, 'Last_Updated'))) broken.push('Last_Updated');
      return broken;
    },
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

/** The names the portal's format has: those of its fixture (checked itself against the format's rules once). */
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

/** What an item breaks of its format: unknown names, a required field empty, a value or a rule of the format. */
function problemsOf(item: Node, portal: Portal, options: FeedOptions): string[] {
  const spec = specs[portal];
  const known = formatNames(portal);
  const problems = [...namesOf(item)].filter((name) => !known.has(name)).map((name) => `a name the format lacks: ${name}`);
  for (const path of spec.required) if (textAt(item, path).trim() === '') problems.push(`required: ${path}`);
  for (const [path, allowed] of Object.entries(spec.values))
    for (const value of textsAt(item, path)) if (!allowed.includes(value)) problems.push(`${path}: ${value}`);
  for (const path of spec.numbers) {
    const value = textAt(item, path);
    if (value !== '' && !number.test(value)) problems.push(`${path} is a number without separators: ${value}`);
  }
  return [...problems, ...spec.rules(item, options)];
}

/**
 * A feed as the portal would read it: well-formed, its root as the format has it, each item with only the format's
 * names, every required field present and not empty, and the format's values and rules kept. Answers the items.
 */
export function validateFeed(xml: string, portal: Portal, options: FeedOptions = {}): Node[] {
  const spec = specs[portal];
  const { root, items } = parsed(xml, portal);
  for (const attribute of spec.rootAttributes) expect(root[attribute], `<${spec.root} ${attribute}>`).toBeTruthy();
  for (const item of items) {
    const reference = textAt(item, portal === 'propertyfinder' ? 'reference_number' : 'Property_Ref_No');
    expect(problemsOf(item, portal, options), `${portal} ${reference}`).toEqual([]);
  }
  return items;
}

/** The fixture itself passes the validation (so the validation checks what the format says). */
export function validateFixture(portal: Portal): Node[] {
  return validateFeed(readFileSync(specs[portal].fixture, 'utf8'), portal);
}
