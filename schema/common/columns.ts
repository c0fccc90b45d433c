import type { ColumnType } from 'kysely';

/** Column types shared by every group's tables (schema/<group>/db.ts). */

/** Localised text as stored: keyed by language code. */
export type LocalisedText = Partial<Record<'en' | 'ar', string>>;

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** `updated_at` columns the database stamps; a write may set them (e.g. to clock_timestamp()). */
export type Touched = ColumnType<Date, Date | string | undefined, Date | string | undefined>;
export type Texts = ColumnType<string[], string[] | undefined, string[]>;
/** A record's version (bigint, bumped by a trigger on every update: its ETag); never written by a query. */
export type Version = ColumnType<string | number, never, never>;
export type Json<T> = ColumnType<T, string | T, string | T>;
/** `numeric` comes back from every driver as a string; it stays a string (no floats for money). */
export type Numeric = ColumnType<string, string | number, string | number>;
export type NullableNumeric = ColumnType<string | null, string | number | null | undefined, string | number | null>;

/** The kinds of listing: a company's `enabled_types` and every listing's `listing_type`. */
export const listingTypes = ['sale', 'lease', 'holiday_home'] as const;
