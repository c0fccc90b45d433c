import { createRouter } from '../../lib/app';
import { json, noQuery } from '../../schema/common/api';
import { PipelineListSchema } from '../../schema/pipelines/pipelines';
import { listPipelines } from './pipelines';
import { pipelinesRoute } from './route';

const listRoute = pipelinesRoute('read:pipelines', {
  method: 'get',
  path: '/pipelines',
  summary: 'The company’s pipelines in order, each with its stages in order (managed in the admin)',
  request: { query: noQuery },
  responses: { 200: json(PipelineListSchema, 'Every pipeline') },
});

export const pipelines = createRouter().openapi(listRoute, async (c) =>
  c.json({ results: await listPipelines(c.var.services.db, c.var.company.id), next_cursor: null }, 200),
);
