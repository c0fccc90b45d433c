import type { Company, CompanySettings } from '../../schema/platform/db';
import { type ListingBase, type PhotoRecord, type PlaceRecord, pricesHidden } from '../../lib/listings';
import { type Language, localised } from '../../lib/localise';
import { iso } from '../../lib/dates';
import { mediaBaseOf, photoUrl, photoWidths } from '../../lib/media';
import { amountShown } from '../../lib/money';

/** A listing row as the catalogue queries select it: the shared select (lib/listings.ts) and the catalogue's own. */
export type ListingRecord = ListingBase & {
  slug_en: string;
  slug_ar: string | null;
  max_guests: number | null;
  featured: boolean;
  location_precision: 'exact' | 'approximate' | null;
  published_at: Date | string | null;
  permit_expires_on: string | null;
  permit_expired: boolean;
};

export const defaultPathPattern = { en: '/en/listings/{slug}', ar: '/ar/listings/{slug}' } as const;
/** Approximate points are snapped to a 0.01° grid (about 1.1 km), so the exact spot cannot be recovered. */
const approximateGrid = 0.01;
const approximateRadiusM = 1000;
/** How the JSON-LD names a permit's kind (`identifier.propertyID`), by its authority. */
const permitKinds = { dld: 'trakheesi', dtcm: 'holiday_home_permit', other: 'advertising_permit' } as const;

/** A listing's permit columns, as the catalogue's reads and the advertising write return them. */
type PermitColumns = Pick<
  ListingRecord,
  'permit_number' | 'permit_authority' | 'permit_expires_on' | 'permit_url' | 'permit_expired'
>;

/**
 * The advertising permit every ad must show where the market requires one (null while any part is missing); its
 * status follows scheduled work. The public forms and the admin's read-back both show it this way.
 */
export function presentPermit(row: PermitColumns) {
  return row.permit_number === null || row.permit_authority === null || row.permit_expires_on === null
    ? null
    : {
        number: row.permit_number,
        authority: row.permit_authority,
        expires_on: row.permit_expires_on,
        verification_url: row.permit_url,
        status: row.permit_expired ? ('expired' as const) : ('valid' as const),
      };
}

export type Presenter = ReturnType<typeof presenter>;
export type PresenterInputs = ReturnType<typeof presenterInputs>;

/**
 * Everything besides a listing's own rows that its public forms depend on: the presenter reads the company and
 * the deployment through this alone, so stored renders tagged with these values (renders.ts) cannot miss one.
 */
export function presenterInputs(company: Company, mediaBaseUrl: string) {
  const settings: CompanySettings = company.settings ?? {};
  return {
    companyId: company.id,
    currency: company.currency,
    hidePrices: pricesHidden(company),
    media: mediaBaseOf(company, mediaBaseUrl),
    pattern: { ...defaultPathPattern, ...(settings.path_pattern ?? {}) },
    siteUrl: settings.site_url ? settings.site_url.replace(/\/+$/, '') : null,
  };
}

/** Shapes catalogue rows for one company: localisation, paths, prices, photos, map points, JSON-LD. */
export function presenter(company: Company, mediaBaseUrl: string) {
  return presenterFor(presenterInputs(company, mediaBaseUrl));
}

function presenterFor(inputs: PresenterInputs) {
  const { companyId, currency, hidePrices, media, pattern, siteUrl } = inputs;

  const slug = (row: { slug_en: string; slug_ar: string | null }) => ({ en: row.slug_en, ar: row.slug_ar ?? row.slug_en });

  const path = (row: ListingRecord) => {
    const slugs = slug(row);
    // The pattern's own text is encoded too (encodeURI keeps "/"), so a path is always a valid URI path.
    const build = (lang: Language) =>
      pattern[lang]
        .split('{slug}')
        .map((part) => encodeURI(part.replaceAll('{type}', row.listing_type).replaceAll('{id}', row.id)))
        .join(encodeURIComponent(slugs[lang]));
    return { en: build('en'), ar: build('ar') };
  };

  const price = (row: ListingRecord) =>
    hidePrices || row.price === null || row.price_period === null
      ? null
      : { amount: amountShown(row.price, currency), currency, period: row.price_period };

  const photo = (p: PhotoRecord) => ({
    position: p.position,
    alt: localised(p.alt),
    sizes: Object.fromEntries(
      Object.entries(photoWidths).map(([name, width]) => [
        name,
        { url: photoUrl(media, companyId, p.storage_key, width, 'webp'), width },
      ]),
    ),
  });

  const coordinates = (row: ListingRecord) => {
    if (row.latitude === null || row.longitude === null) return null;
    if (row.location_precision === 'exact') {
      return { latitude: row.latitude, longitude: row.longitude, precision: 'exact' as const };
    }
    const snap = (v: number) => Number((Math.round(v / approximateGrid) * approximateGrid).toFixed(2));
    return {
      latitude: snap(row.latitude),
      longitude: snap(row.longitude),
      precision: 'approximate' as const,
      radius_m: approximateRadiusM,
    };
  };

  const place = (p: PlaceRecord | null) => (p ? { slug: slug(p), name: localised(p.name) } : null);

  const summary = (row: ListingRecord) => ({
    id: row.id,
    slug: slug(row),
    status: 'published' as const,
    listing_type: row.listing_type,
    title: localised(row.title),
    path: path(row),
    price: price(row),
    property_type: row.property_type,
    bedrooms: row.bedrooms,
    bathrooms: row.bathrooms,
    size_sqm: row.size_sqm === null ? null : Number(row.size_sqm),
    max_guests: row.max_guests,
    completion: row.completion,
    featured: row.featured,
    city: place(row.city),
    area: place(row.area),
    project: place(row.project),
    coordinates: coordinates(row),
    photos: row.photos.map(photo),
    permit: presentPermit(row),
    published_at: iso(row.published_at) ?? '',
    updated_at: iso(row.updated_at),
  });

  const structuredData = (row: ListingRecord, lang: Language) => {
    const title = localised(row.title)[lang];
    const description = localised(row.description)[lang];
    const point = coordinates(row);
    const url = siteUrl ? siteUrl + path(row)[lang] : undefined;
    const offer = price(row);
    const unitCode = { total: undefined, year: 'ANN', month: 'MON', night: 'DAY' } as const;
    const shown = presentPermit(row);
    return {
      '@context': 'https://schema.org',
      '@type': 'RealEstateListing',
      name: title,
      description,
      inLanguage: lang,
      ...(url ? { url } : {}),
      datePosted: (iso(row.published_at) ?? '').slice(0, 10),
      image: row.photos.map((p) => photo(p).sizes.large?.url),
      ...(shown
        ? {
            identifier: {
              '@type': 'PropertyValue',
              propertyID: permitKinds[shown.authority],
              value: shown.number,
              ...(shown.verification_url ? { url: shown.verification_url } : {}),
            },
          }
        : {}),
      ...(offer
        ? {
            offers: {
              '@type': 'Offer',
              price: offer.amount,
              priceCurrency: offer.currency,
              businessFunction:
                row.listing_type === 'sale'
                  ? 'http://purl.org/goodrelations/v1#Sell'
                  : 'http://purl.org/goodrelations/v1#LeaseOut',
              ...(unitCode[offer.period]
                ? {
                    priceSpecification: {
                      '@type': 'UnitPriceSpecification',
                      price: offer.amount,
                      priceCurrency: offer.currency,
                      unitCode: unitCode[offer.period],
                    },
                  }
                : {}),
            },
          }
        : {}),
      about: {
        '@type': row.listing_type === 'holiday_home' ? 'Accommodation' : 'Residence',
        ...(row.bedrooms !== null ? { numberOfBedrooms: row.bedrooms } : {}),
        ...(row.bathrooms !== null ? { numberOfBathroomsTotal: row.bathrooms } : {}),
        ...(row.size_sqm !== null
          ? { floorSize: { '@type': 'QuantitativeValue', value: Number(row.size_sqm), unitCode: 'MTK' } }
          : {}),
        ...(row.max_guests !== null ? { occupancy: { '@type': 'QuantitativeValue', maxValue: row.max_guests } } : {}),
        address: {
          '@type': 'PostalAddress',
          ...(row.city ? { addressLocality: localised(row.city.name)[lang] } : {}),
          ...(row.area ? { addressRegion: localised(row.area.name)[lang] } : {}),
        },
        ...(point ? { geo: { '@type': 'GeoCoordinates', latitude: point.latitude, longitude: point.longitude } } : {}),
      },
    };
  };

  const detail = (row: ListingRecord) => ({
    ...summary(row),
    description: localised(row.description),
    structured_data: { en: structuredData(row, 'en'), ar: structuredData(row, 'ar') },
  });

  const mapPoint = (row: ListingRecord, withCover: boolean) => {
    const first = row.photos[0];
    return {
      id: row.id,
      slug: slug(row),
      listing_type: row.listing_type,
      title: localised(row.title),
      path: path(row),
      price: price(row),
      coordinates: coordinates(row) as NonNullable<ReturnType<typeof coordinates>>,
      ...(withCover ? { cover: first ? photo(first) : null } : {}),
    };
  };

  /** A withdrawn listing read by slug: its slugs and status, nothing else. */
  const withdrawn = (row: { slug_en: string; slug_ar: string | null }) => ({ slug: slug(row), status: 'withdrawn' as const });

  const sitemapEntry = (row: ListingRecord) => {
    const paths = path(row);
    return {
      paths,
      lastmod: iso(row.updated_at),
      alternates: [
        { hreflang: 'en', path: paths.en },
        { hreflang: 'ar', path: paths.ar },
        { hreflang: 'x-default', path: paths.en },
      ],
    };
  };

  return { slug, path, summary, detail, withdrawn, mapPoint, sitemapEntry, photo };
}
