import type { Access } from '../../lib/access';

/** Catalogue reads need no key; with a server key they need read:listings and are limited per key. */
export const catalogueRead: Access = { kind: 'public', scopes: ['read:listings'] };
