import { sha256 } from './crypto';

/**
 * Whether a request's If-None-Match matches an ETag: weak comparison (RFC 9110 §13.1.2), so `W/` is ignored on
 * both sides; `*` matches any. Shared by the conditional GETs of the catalogue and of availability.
 */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  // What a client sends back most often: the ETag it was given, as it was given.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/** An opaque ETag value of a text: the first 12 bytes of its SHA-256 in hex, quoted (`"…"`). */
export async function etagOf(text: string): Promise<string> {
  const digest = await sha256(text);
  return `"${Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, '0')).join('')}"`;
}
