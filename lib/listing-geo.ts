import { type RawBuilder, sql } from 'kysely';

/**
 * The map filters of a listing `l` (issue 36): a box and a distance, both on the point the catalogue shows — the exact
 * point, or for an `approximate` listing the point snapped to the presenter's 0.01° grid (listings.present.ts) — so a
 * filter can never tell more about an approximate listing's position than its answer does.
 */

/** The shown latitude or longitude of `l` (the presenter's snap: round half up to 0.01°, then to two decimals). */
function shown(column: 'latitude' | 'longitude'): RawBuilder<number> {
  const exact = sql.ref(`l.${column}`);
  return sql<number>`(case when l.location_precision = 'approximate'
    then round((floor(${exact} / 0.01 + 0.5) * 0.01)::numeric, 2)::float8 else ${exact} end)`;
}

/** Kilometres along the earth's surface (haversine, mean radius 6371.0088 km) from a point to the shown point of `l`. */
export function distanceKm(near: readonly number[]): RawBuilder<number> {
  const [lat, lon] = near as [number, number];
  const lat1 = sql`radians(${lat}::float8)`;
  const lat2 = sql`radians(${shown('latitude')})`;
  const dLat = sql`radians(${shown('latitude')} - ${lat}::float8)`;
  const dLon = sql`radians(${shown('longitude')} - ${lon}::float8)`;
  return sql<number>`(2 * 6371.0088 * asin(least(1, sqrt(
    power(sin(${dLat} / 2), 2) + cos(${lat1}) * cos(${lat2}) * power(sin(${dLon} / 2), 2)))))`;
}

/** The shown point of `l` inside the box min_lon,min_lat,max_lon,max_lat (edges included). */
export function insideBox(bbox: readonly number[]): RawBuilder<boolean> {
  const [minLon, minLat, maxLon, maxLat] = bbox as [number, number, number, number];
  return sql<boolean>`(${shown('longitude')} between ${minLon}::float8 and ${maxLon}::float8
    and ${shown('latitude')} between ${minLat}::float8 and ${maxLat}::float8)`;
}

/** The radius `near` takes without `radius_km`. */
export const defaultRadiusKm = '5';
