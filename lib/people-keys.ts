import { getCountryForTimezone } from 'countries-and-timezones';
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CompanySettings } from '../schema/platform/db';
import { ApiError } from './errors';

/** The matching key of an email: trimmed and lower-cased (emails are compared case-insensitively). */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The country a company's phone numbers written without `+` are read in: its `phone_country` setting, else the
 * country of its time zone (`Asia/Dubai` → AE, by countries-and-timezones; a zone several countries share gives
 * the one tzdata names it for). None for a zone of no country (`UTC`): then only international numbers are read.
 */
export function phoneCountryOf(company: { time_zone: string; settings: CompanySettings }): string | undefined {
  return company.settings.phone_country ?? getCountryForTimezone(company.time_zone)?.id;
}

/**
 * A phone number in E.164 (`+971501234567`), the form it is stored, shown and matched in. A number without
 * `+` is read in the company's country ({@link phoneCountryOf}); `00` is read as `+` when the company has none (the ITU
 * international prefix). Extensions are dropped. A number that cannot be read, or whose length is not
 * possible for its country, is refused (400).
 */
export function normalisePhone(raw: string, country?: string): string {
  const text = raw.trim();
  const defaultCountry = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const international = !defaultCountry && text.startsWith('00') ? `+${text.slice(2)}` : text;
  const parsed = parsePhoneNumberFromString(international, defaultCountry);
  if (!parsed?.isPossible()) {
    throw new ApiError('invalid_request', 'The phone number cannot be read.', {
      errors: [
        {
          path: 'phone',
          code: 'invalid_phone',
          message: defaultCountry
            ? 'Give a phone number in international form (+971 50 123 4567) or as dialled in the company’s country.'
            : 'Give a phone number in international form, starting with + and the country code.',
        },
      ],
    });
  }
  return parsed.number;
}
