import type { World } from '../support/world';

/**
 * PUT /admin/v1/companies/{company_id}/listings/{slug}/maintenance through the typed admin client: a home's owner
 * and approval limit, as openapi-fetch answers (`{ data, error, response }`).
 */
export const setUpkeep = (w: World, home: string, body: { owner?: string | null; approval_limit?: string | null }) =>
  w.adminClient.PUT('/admin/v1/companies/{company_id}/listings/{slug}/maintenance', {
    params: { path: { company_id: w.company.id, slug: home } },
    body: body as never,
  });
