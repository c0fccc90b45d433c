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

/**
 * A body kept in memory for the process's life (the reference page's script, an OpenAPI document), sent in the variant
 * the request's Accept-Encoding prefers. The variants are made once, on first use, by the runtime's compressor (Node:
 * gzip and brotli); without one (Workers, where Cloudflare compresses at the edge) the body goes as it is.
 */
export class KeptBody {
  #encoded: Promise<EncodedBody> | undefined;
  readonly #make: () => Promise<string> | string;

  constructor(make: () => Promise<string> | string) {
    this.#make = make;
  }

  /** The body and its variants (made once; a failed compression leaves it identity only). */
  encoded(compress: Compressor | undefined): Promise<EncodedBody> {
    this.#encoded ??= (async () => {
      const identity = new TextEncoder().encode(await this.#make());
      const variants = compress ? await compress(identity).catch(() => ({})) : {};
      return { identity, ...variants };
    })();
    return this.#encoded;
  }

  /** The answer: the chosen variant with Content-Encoding, `Vary: Accept-Encoding` whenever variants exist. */
  async answer(
    c: Context,
    compress: Compressor | undefined,
    headers: Record<string, string>,
    status: 200 = 200,
  ): Promise<Response> {
    const body = await this.encoded(compress);
    const encoding = chooseEncoding(c, body);
    const all: Record<string, string> = { ...headers };
    if (body.br || body.gzip) all.Vary = 'Accept-Encoding';
    if (encoding) all['Content-Encoding'] = encoding;
    return c.body((encoding ? body[encoding] : body.identity) as Uint8Array<ArrayBuffer>, status, all);
  }
}
