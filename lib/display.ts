/**
 * How people are shown money and instants: the same on the stay page (functions/stay/page.ts) and on the example
 * website, which loads this module bundled (examples/website/vendor/display.js, built by `npm run client:generate`).
 * `Intl` in the visitor's language (Latin digits in Arabic too, so amounts read the same in both), instants in the
 * company's time zone with the zone named. Amounts are the API's decimal strings: formatted only, never computed.
 */
export type DisplayLanguage = 'en' | 'ar';

export function displayLocale(language: DisplayLanguage): string {
  return language === 'ar' ? 'ar-AE-u-nu-latn' : 'en-GB';
}

/** The decimal string itself is formatted (Intl reads it exactly, ES2023): no float ever rounds an amount. */
export function formatMoney(amount: string, currency: string, language: DisplayLanguage): string {
  return new Intl.NumberFormat(displayLocale(language), { style: 'currency', currency }).format(
    amount as Intl.StringNumericLiteral,
  );
}

export function formatInstant(at: string | Date, language: DisplayLanguage, timeZone: string): string {
  return new Intl.DateTimeFormat(displayLocale(language), { dateStyle: 'full', timeStyle: 'long', timeZone }).format(
    new Date(at),
  );
}

/**
 * An instant as its day and time to the minute, in the company's time zone with the zone named (a check-in from
 * 15:00 at the home: "Sunday 24 January 2027 at 15:00 GST"; Arabic "الأحد، 24 يناير 2027 في 3:00 م غرينتش+4").
 */
export function formatDayTime(at: string | Date, language: DisplayLanguage, timeZone: string): string {
  return new Intl.DateTimeFormat(displayLocale(language), {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
    timeZone,
  }).format(new Date(at));
}

/** A calendar date `YYYY-MM-DD`, read as that day wherever the reader is. */
export function formatDay(date: string, language: DisplayLanguage): string {
  return new Intl.DateTimeFormat(displayLocale(language), { dateStyle: 'full', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );
}
