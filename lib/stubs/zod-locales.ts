/**
 * Stands in for zod's locale bundle (`z.locales`) in the Workers' bundles (wrangler.jsonc `alias`): every
 * locale but English, which zod imports on its own for its messages and which stays, is never used.
 */
export {};
