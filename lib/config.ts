import { z } from 'zod';

/** Lead-details key ids (lib/crypto-jwe.ts): short, URL-safe, readable in a JWE header. */
const kidPattern = /^[A-Za-z0-9_.-]{1,64}$/;
/** A 32-byte key in base64url without padding. */
const keyPattern = /^[A-Za-z0-9_-]{43}$/;

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
  // Listings' stored forms kept in memory per process (or Worker isolate) by revision, so a page built after a
  // change selects the revisions of its rows, not their forms (functions/catalogue/renders.ts). 0 turns it off.
  CATALOGUE_FORMS_CACHE_MB: z.coerce.number().min(0).max(1024).default(16),
  // Part of every catalogue ETag: set it per deploy (e.g. the commit) so a release that changes how answers
  // look is never revalidated against an older one. The Node server uses its start time when unset.
  RELEASE: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .default('1'),
  // Webhooks. Signing secrets are stored encrypted (AES-256-GCM) under this key: base64 of 32 bytes. The Node
  // server generates one into DATA_DIR on first start; on Workers it is a secret (`wrangler secret put`).
  WEBHOOK_SECRET_KEY: z
    .string()
    .refine((v) => base64Bytes(v) === 32, 'Base64 of exactly 32 random bytes (openssl rand -base64 32).')
    .optional(),
  // How long a subscriber may take to answer (the contract says 15 s; tests shorten it).
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  // Node: how often the in-process dispatcher looks for due deliveries (it is also woken after each write).
  WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  // Node: how often the scheduler runs (outbox sweep, rebuild hooks, …). Workers use Cron Triggers instead.
  SCHEDULER_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3600).default(10),
  // Changes to published listings within this window are coalesced into one static-site rebuild.
  REBUILD_HOOK_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  // QStash (production fan-out). With QSTASH_TOKEN set, deliveries go through QStash; otherwise in-process.
  QSTASH_TOKEN: z.string().optional(),
  QSTASH_URL: z.string().url().default('https://qstash.upstash.io'),
  QSTASH_CURRENT_SIGNING_KEY: z.string().optional(),
  QSTASH_NEXT_SIGNING_KEY: z.string().optional(),
  // Retries QStash makes after the first attempt: 9 follows the whole schedule; lower it to the plan's maximum
  // (the sweep republishes what QStash gave up on, and the schedule goes on).
  QSTASH_RETRIES: z.coerce.number().int().min(0).max(20).default(9),
  // The public origin QStash calls back (this deployment's /internal/v1/deliveries/{id}), e.g. https://api.example.com.
  INTERNAL_BASE_URL: z
    .string()
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  // Lead details are encrypted at rest with these keys (lib/crypto-jwe.ts); DETAILS_KEY_ID names the one new
  // details use. Without them a lead with details is refused (503 encryption_unavailable).
  DETAILS_KEYS: detailsKeys.optional(),
  DETAILS_KEY_ID: z.string().regex(kidPattern).optional(),
  // Availability answers kept in memory at most this long (less when a hold in them lapses sooner); keyed by
  // the home's calendar version, so a booking change is seen at once. 0 turns it off.
  AVAILABILITY_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  // Visitor forms' spam check (Cloudflare Turnstile). Tests point it at a verifier on loopback.
  TURNSTILE_SITEVERIFY_URL: z.string().url().default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  SPAM_CHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
  // Where each problem's `type` points: this URL followed by the code (e.g. https://docs.example.com/problems/ gives
  // https://docs.example.com/problems/not_found). Unset: /problems/<code> on the host the request was sent to, which
  // this API answers itself (lib/problem-pages.ts). A slash is added at the end when missing.
  PROBLEM_TYPE_BASE_URL: z
    .string()
    .url()
    .transform((u) => (u.endsWith('/') ? u : `${u}/`))
    .optional(),
});

function base64Bytes(text: string): number {
  try {
    return atob(text).length;
  } catch {
    return -1;
  }
}

export type Config = z.infer<typeof configSchema>;

/** Configuration comes from the environment (process.env on Node, vars and secrets on Workers). */
export function loadConfig(env: Record<string, unknown>): Config {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const config = configSchema.parse(picked);
  if (config.QSTASH_TOKEN && !config.INTERNAL_BASE_URL) {
    throw new Error('QSTASH_TOKEN is set but INTERNAL_BASE_URL is not: QStash needs the public origin of /internal/v1.');
  }
  if (
    (config.DETAILS_KEYS === undefined) !== (config.DETAILS_KEY_ID === undefined) ||
    (config.DETAILS_KEY_ID && !(config.DETAILS_KEY_ID in (config.DETAILS_KEYS ?? {})))
  ) {
    throw new Error('DETAILS_KEY_ID must name one of DETAILS_KEYS (set both or neither).');
  }
  return config;
}
