import { amountOut } from '../../lib/money';
import type { draftListing } from './draft-listing';

/** A draft listing as the admin API answers it. */
export function draftListingView(made: Awaited<ReturnType<typeof draftListing>>) {
  const { listing, places, warnings } = made;
  return {
    lead: made.lead,
    id: listing.id,
    slug: listing.slug_en,
    status: 'draft' as const,
    listing_type: listing.listing_type,
    title: made.title,
    city: places.city?.slug_en ?? null,
    area: places.area?.slug_en ?? null,
    project: places.project?.slug_en ?? null,
    property_type: listing.property_type,
    bedrooms: listing.bedrooms,
    bathrooms: listing.bathrooms,
    size_sqm: listing.size_sqm === null ? null : Number(listing.size_sqm),
    price: amountOut(listing.price === null ? null : String(listing.price), made.currency),
    price_period: listing.price_period,
    warnings,
  };
}
