/**
 * Stands in for zod's locale bundle (`z.locales`) in the Workers' bundles (wrangler.toml `alias`): every
 * locale but English, which zod imports on its own for its messages and which stays, is never used.
 */
export {};
