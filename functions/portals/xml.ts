import XMLBuilder from 'fast-xml-builder';

/**
 * XML for the portal feeds: elements built by fast-xml-parser's builder (it escapes `&`, `<`, `>` and quotes, and
 * splits a `]]>` inside CDATA), one listing at a time, so a feed of any size is written in pieces.
 */
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  cdataPropName: '#cdata',
  suppressEmptyNode: false,
  format: false,
});

/** An element and its children as the builder takes them: text, `@_attribute`s, `#cdata`, nested elements, arrays. */
export type XmlNode = { [name: string]: XmlValue };
type XmlValue = string | number | XmlNode | XmlValue[] | undefined;

/** One element (or several siblings) as XML text. */
export function xmlOf(node: XmlNode): string {
  return builder.build(node) as string;
}

/**
 * Text as XML 1.0 allows it (its `Char` production): C0 controls but tab, line feed and carriage return, and U+FFFE,
 * U+FFFF, dropped; a lone surrogate (which no UTF-8 encoder can write) replaced by U+FFFD. Arabic, emoji and every
 * other character are kept; escaping is the builder's.
 */
export function xmlText(value: string): string {
  return (
    value
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are what is removed
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
  );
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD HH:MM:SS` in the company's time zone (the portals' date format). */
export function localTimestamp(at: Date | string, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('sv-SE', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  return format.format(typeof at === 'string' ? new Date(at) : at);
}
