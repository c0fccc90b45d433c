import type { Context } from 'hono';
import { accepts } from 'hono/accepts';

/**
 * Response bodies stored once as bytes with their compressed variants, and the variant a request accepts
 * (`Accept-Encoding`). The Node server compresses with zlib (gzip and brotli, lib/node/compress.ts). Workers keep
 * pages uncompressed: Cloudflare compresses at the edge, and workerd would encode a body again whose
 * Content-Encoding it is given (unless `encodeBody: 'manual'`), which the workerd test caught.
 */
export type Encoding = 'br' | 'gzip';

/** A body and the compressed variants made of it. */
export type EncodedBody = { identity: Uint8Array } & Partial<Record<Encoding, Uint8Array>>;

/** Makes the compressed variants of a body (those it can). */
export type Compressor = (body: Uint8Array) => Promise<Partial<Record<Encoding, Uint8Array>>>;

const preference: readonly Encoding[] = ['br', 'gzip'];

/**
 * The variant to send: the stored encoding the client gives the highest q-value (brotli before gzip on a tie;
 * `*` stands for any encoding not named), or none (identity) when it accepts none of them. Hono parses the header.
 */
export function chooseEncoding(c: Context, body: EncodedBody): Encoding | undefined {
  const stored = preference.filter((encoding) => body[encoding]);
  if (stored.length === 0) return undefined;
  const chosen = accepts(c, {
    header: 'Accept-Encoding',
    supports: stored,
    default: 'identity',
    match: (accepted, { supports }) => {
      const weight = (name: string) => accepted.find((a) => a.type.toLowerCase() === name)?.q;
      let best = 'identity';
      let bestQ = 0;
      for (const encoding of supports) {
        const q = weight(encoding) ?? weight('*') ?? 0;
        if (q > bestQ) [best, bestQ] = [encoding, q];
      }
      return best;
    },
  });
  return chosen === 'identity' ? undefined : (chosen as Encoding);
}
