import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, noQuery } from '../../schema/common/api';
import { PipelineListSchema } from '../../schema/pipelines/pipelines';
import { listPipelines } from './pipelines';
import { pipelinesRoute } from './scopes';

const listRoute = pipelinesRoute('read:pipelines', {
  method: 'get',
  path: '/pipelines',
  summary: 'The company’s pipelines in order, each with its stages in order (managed in the admin)',
  request: { query: noQuery },
  responses: { 200: json(PipelineListSchema, 'Every pipeline') },
});

const listAll: Handler<typeof listRoute> = async (c) =>
  c.json({ results: await listPipelines(c.var.services.db, c.var.company.id), next_cursor: null }, 200);

export const pipelineList = createRouter().openapi(listRoute, listAll);
