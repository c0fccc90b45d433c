import Big from 'big.js';
import { photoUrl } from '../../lib/media';
import { plainAmount } from '../../lib/money';
import type { Furnishing, Portal } from '../../schema/common/permits';
import type { FeedListing } from './feeds';
import { commercialTypes, propertyTypes, typeKey } from './rules';
import { localTimestamp, type XmlNode, xmlText } from './xml';

/**
 * The two portals' XML formats, one listing's element at a time (docs/api-reference.md, "Portals and advertising
 * permits", cites both formats): Property Finder's agency feed (`<list>` of `<property>`) and Bayut/dubizzle's
 * (`<Properties>` of `<Property>`). The queries are feeds.ts's; a listing reaches these functions only when the
 * portal takes it (rules.ts): it has a price, a known type, a city and area, an agent with email and phone, the
 * permit its market requires and, for Bayut, an off-plan listing's sale type.
 */

/**
 * What every element of one feed is written with: the company's zone, its photos' base URL, whether it hides prices,
 * and its currency (amounts are written with its digits, lib/money.ts).
 */
export type FeedContext = { companyId: string; timeZone: string; media: string; hidePrices: boolean; currency: string };

export type FeedFormat = {
  /** The document's start: the XML declaration and the root's opening tag (counts and times only: nothing to escape). */
  open(count: number, generatedAt: Date, context: FeedContext): string;
  element(listing: FeedListing, context: FeedContext): XmlNode;
  close: string;
};

const squareFeetPerSquareMetre = '10.7639104';
const sqft = (sqm: string) => new Big(sqm).times(squareFeetPerSquareMetre).round(0).toString();
const text = (value: string | undefined) => xmlText(value ?? '');
/** The photos as a portal fetches them: JPEG at our 1600-pixel size (neither portal lists WebP), at most `max`. */
const photoUrls = (l: FeedListing, c: FeedContext, max = Number.POSITIVE_INFINITY) =>
  l.photos.slice(0, max).map((p) => photoUrl(c.media, c.companyId, p.storage_key, 1600, 'jpg'));
/** A reference without spaces or punctuation, stable for the listing's life: its id's 32 hex digits. */
const reference = (l: FeedListing) => l.id.replaceAll('-', '');
const digits = (phone: string) => phone.replace(/\D/g, '');
/** Only what has a value: an empty optional element is left out rather than sent empty. */
const present = (node: Record<string, XmlNode[string] | null | undefined>): XmlNode =>
  Object.fromEntries(
    Object.entries(node).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  ) as XmlNode;
/** An optional amount as the portals write numbers (lib/money.ts `plainAmount`: no all-zero fraction). */
const amount = (decimal: string | null, c: FeedContext) => (decimal === null ? undefined : plainAmount(decimal, c.currency));

/**
 * The price a feed sends, or null: none while the company hides its prices (`settings.hide_prices`, as the
 * catalogue's answers show none), so no portal is sent one.
 */
function shownPrice(l: FeedListing, c: FeedContext) {
  if (c.hidePrices || l.price === null || l.price_period === null) return null;
  return { amount: plainAmount(l.price, c.currency), period: l.price_period };
}

/** Both portals name furnishing `Yes`, `Partly` or `No`. */
const furnishedValues: Record<Furnishing, string> = { furnished: 'Yes', partly_furnished: 'Partly', unfurnished: 'No' };

/** Property Finder: prices of rentals by period (`yearly`, `monthly`, `daily`), sales as one number. */
const pfPeriods = { year: 'yearly', month: 'monthly', night: 'daily' } as const;
/** Property Finder's format takes at most 10 images a listing: the first 10 in position order are sent. */
export const propertyFinderMaxPhotos = 10;

export const propertyFinder: FeedFormat = {
  open: (count, at, c) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<list last_update="${localTimestamp(at, c.timeZone)}" listing_count="${count}">`,
  close: '</list>\n',
  element(l, c) {
    const type = propertyTypes.propertyfinder[typeKey(l.property_type ?? '')] as string;
    const offering = `${commercialTypes.has(type) ? 'C' : 'R'}${l.listing_type === 'sale' ? 'S' : 'R'}`;
    const price = shownPrice(l, c);
    const updated = localTimestamp(l.updated_at, c.timeZone);
    return {
      property: present({
        '@_last_update': updated,
        reference_number: reference(l),
        permit_number: l.permit_authority === 'dtcm' ? undefined : l.permit_number,
        dtcm_permit: l.permit_authority === 'dtcm' ? l.permit_number : undefined,
        offering_type: offering,
        property_type: type,
        // Price on application: the portal shows no price, and none is sent.
        price_on_application: price === null ? 'Yes' : 'No',
        price: price === null ? undefined : price.period === 'total' ? price.amount : { [pfPeriods[price.period]]: price.amount },
        service_charge: amount(l.service_charge, c),
        cheques: l.cheques ?? undefined,
        city: text(l.city?.name.en),
        community: text(l.area?.name.en),
        sub_community: l.project ? text(l.project.name.en) : undefined,
        title_en: text(l.title.en),
        title_ar: l.title.ar ? text(l.title.ar) : undefined,
        description_en: { '#cdata': text(l.description.en) },
        description_ar: l.description.ar ? { '#cdata': text(l.description.ar) } : undefined,
        size: l.size_sqm === null ? undefined : sqft(l.size_sqm),
        bedroom: l.bedrooms ?? undefined,
        bathroom: l.bathrooms ?? undefined,
        furnished: l.furnished === null ? undefined : furnishedValues[l.furnished],
        completion_status: l.completion === null ? undefined : l.completion === 'off_plan' ? 'off_plan' : 'completed',
        geopoints: l.latitude === null || l.longitude === null ? undefined : `${l.longitude},${l.latitude}`,
        photo: {
          url: photoUrls(l, c, propertyFinderMaxPhotos).map((url) => ({ '@_last_updated': updated, '#text': url })),
        },
        agent: present({
          id: l.agent.id.replaceAll('-', ''),
          name: text(l.agent.name),
          email: l.agent.email,
          phone: digits(l.agent.phone),
          photo: l.agent.photo_url ?? undefined,
          license_no: l.agent.licence_number === null ? undefined : text(l.agent.licence_number),
        }),
      }),
    };
  },
};

/** Bayut/dubizzle: sale is `Buy`, everything else `Rent` with its frequency (its guidelines capitalise them). */
const bayutFrequencies = { year: 'Yearly', month: 'Monthly', night: 'Daily' } as const;
const bayutSaleTypes = { new: 'New', resale: 'Resale' } as const;

export const bayut: FeedFormat = {
  open: () => '<?xml version="1.0" encoding="UTF-8"?>\n<Properties>',
  close: '</Properties>\n',
  element(l, c) {
    const price = shownPrice(l, c);
    return {
      Property: present({
        Property_Ref_No: reference(l),
        Permit_Number: l.permit_number,
        Property_Status: 'live',
        Property_purpose: l.listing_type === 'sale' ? 'Buy' : 'Rent',
        Property_Type: propertyTypes.bayut[typeKey(l.property_type ?? '')],
        Property_Title: text(l.title.en),
        Property_Title_AR: l.title.ar ? text(l.title.ar) : undefined,
        Property_Description: { '#cdata': text(l.description.en) },
        Property_Description_AR: l.description.ar ? { '#cdata': text(l.description.ar) } : undefined,
        City: text(l.city?.name.en),
        Locality: text(l.area?.name.en),
        Sub_Locality: l.project ? text(l.project.name.en) : undefined,
        Property_Size: l.size_sqm === null ? undefined : sqft(l.size_sqm),
        Property_Size_Unit: l.size_sqm === null ? undefined : 'SQFT',
        Bedrooms: l.bedrooms ?? undefined,
        Bathrooms: l.bathrooms ?? undefined,
        // A company that hides its prices sends neither the price nor its frequency (Bayut names no price on request).
        Price: price?.amount,
        Rent_Frequency: price === null || price.period === 'total' ? undefined : bayutFrequencies[price.period],
        Furnished: l.furnished === null ? undefined : furnishedValues[l.furnished],
        Off_plan: l.completion === 'off_plan' ? 'Yes' : 'No',
        offplanDetails_saleType: l.offplan_sale_type === null ? undefined : bayutSaleTypes[l.offplan_sale_type],
        offplanDetails_dldWaiver: l.offplan_dld_waiver ?? undefined,
        offplanDetails_originalPrice: amount(l.offplan_original_price, c),
        offplanDetails_amountPaid: amount(l.offplan_amount_paid, c),
        Images: { Image: photoUrls(l, c) },
        Listing_Agent: text(l.agent.name),
        Listing_Agent_Phone: l.agent.phone,
        Listing_Agent_Email: l.agent.email,
        Last_Updated: localTimestamp(l.updated_at, c.timeZone),
        Portals: { Portal: ['Bayut', 'dubizzle'] },
      }),
    };
  },
};

export const feedFormats: Record<Portal, FeedFormat> = { propertyfinder: propertyFinder, bayut };
