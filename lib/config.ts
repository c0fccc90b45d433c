import { z } from 'zod';
import { keyPattern, kidPattern } from './crypto-jwe';

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** DETAILS_KEYS: a JSON object of key id → base64url 32-byte key (a string in the environment). */
const detailsKeys = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
  z.record(z.string().regex(kidPattern), z.string().regex(keyPattern, 'A 32-byte key in base64url.')),
);

const configSchema = z.object({
  // Requests per minute. Anonymous catalogue reads are limited per client address, key requests per key.
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: int(300),
  RATE_LIMIT_SERVER_KEY_PER_MINUTE: int(1200),
  RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: int(60),
  MAX_BODY_BYTES: int(64 * 1024),
  MEDIA_BASE_URL: z.string().url().default('https://media.property-api.dev'),
  UPSTASH_REDIS_REST_URL: z.string().url().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  // Catalogue answers may be cached this long by browsers (max-age) and edge caches (s-maxage).
  CATALOGUE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).default(60),
  CATALOGUE_EDGE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).default(300),
  // Rendered catalogue answers kept in memory per process (or Worker isolate), keyed by the catalogue
  // version: a repeated page costs the company lookup only. 0 turns it off.
  CATALOGUE_RESPONSE_CACHE_MB: z.coerce.number().min(0).max(1024).default(32),
  // Part of every catalogue ETag: set it per deploy (e.g. the commit) so a release that changes how answers
  // look is never revalidated against an older one. The Node server uses its start time when unset.
  RELEASE: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .default('1'),
  // Lead details are encrypted at rest with these keys (lib/crypto-jwe.ts); DETAILS_KEY_ID names the one new
  // details use. Without them a lead with details is refused (503 encryption_unavailable).
  DETAILS_KEYS: detailsKeys.optional(),
  DETAILS_KEY_ID: z.string().regex(kidPattern).optional(),
});

export type Config = z.infer<typeof configSchema>;

/** Configuration comes from the environment (process.env on Node, vars and secrets on Workers). */
export function loadConfig(env: Record<string, unknown>): Config {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const config = configSchema.parse(picked);
  if (
    (config.DETAILS_KEYS === undefined) !== (config.DETAILS_KEY_ID === undefined) ||
    (config.DETAILS_KEY_ID && !(config.DETAILS_KEY_ID in (config.DETAILS_KEYS ?? {})))
  ) {
    throw new Error('DETAILS_KEY_ID must name one of DETAILS_KEYS (set both or neither).');
  }
  return config;
}
