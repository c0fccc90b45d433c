import { defineRoute } from '../../lib/access';
import { catalogueAccess } from './cache';
import { createRouter } from '../../lib/app';
import { notFound } from '../../lib/errors';
import { localised } from '../../lib/localise';
import { TeamProfileSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';

const route = defineRoute({
  method: 'get',
  path: '/team',
  operationId: 'listTeamProfiles',
  summary: 'Published team profiles (companies with the team module)',
  // No key needed; a key sent here must hold read:team.
  ...catalogueAccess({ kind: 'public', scopes: ['read:team'] }),
  request: { query: noQuery },
  responses: {
    200: json(allOf(TeamProfileSchema, 'TeamProfileList'), 'Team profiles'),
  },
});

export const team = createRouter().openapi(route, async (c) => {
  const company = c.var.company;
  if (company.settings?.team_module !== true) throw notFound('The team (the company has no team module)');
  const rows = await c.var.services.db
    .selectFrom('team_profiles')
    .select(['id', 'name', 'role', 'bio', 'photo_url', 'email', 'phone', 'languages'])
    .where('company_id', '=', company.id)
    .where('published', '=', true)
    .orderBy('position')
    .orderBy('created_at')
    .execute();
  const results = rows.map((r) => ({ ...r, role: localised(r.role), bio: localised(r.bio) }));
  return c.json({ results, next_cursor: null }, 200);
});
