import { defineRoute } from '../../lib/access';
import { catalogueAccess } from './cache';
import { createRouter } from '../../lib/app';
import { notFound } from '../../lib/errors';
import type { Handler } from '../../lib/routes';
import { publishedTeam } from './team';
import { presentPublicProfile } from './team.present';
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

const listTeam: Handler<typeof route> = async function listTeam(c) {
  const company = c.var.company;
  if (company.settings?.team_module !== true) throw notFound('The team (the company has no team module)');
  const rows = await publishedTeam(c.var.services.db, company.id);
  return c.json({ results: rows.map(presentPublicProfile), next_cursor: null }, 200);
};

export const team = createRouter().openapi(route, listTeam);
