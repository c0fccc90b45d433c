import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import {
  PipelineInput,
  PipelineListSchema,
  PipelinePatchInput,
  PipelineSchema,
  pipelineKey,
  StageInput,
} from '../../schema/pipelines/pipelines';
import { createPipeline, deleteStage, listPipelines, putStage, updatePipeline } from './pipelines';

const pipelineParams = companyParam.extend({ key: pipelineKey });
const stageParams = pipelineParams.extend({ stage: pipelineKey });

const list = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/pipelines',
  summary: 'The company’s pipelines in order, with their stages',
  request: { params: companyParam },
  responses: { 200: json(PipelineListSchema) },
});
const add = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/pipelines',
  summary: 'Add a pipeline with its stages in order',
  request: { params: companyParam, body: jsonBody(PipelineInput) },
  responses: { 201: json(PipelineSchema, 'Created'), 409: problem('`conflict`: the key is taken') },
});
const patch = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}/pipelines/{key}',
  summary: 'Rename a pipeline, change its purpose, or move it to another position',
  request: { params: pipelineParams, body: jsonBody(PipelinePatchInput) },
  responses: { 200: json(PipelineSchema) },
});
const putStageRoute = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/pipelines/{key}/stages/{stage}',
  summary: 'Add a stage, or rename, re-weigh or move one (its kind only while no deal sits on it)',
  request: { params: stageParams, body: jsonBody(StageInput) },
  responses: {
    200: json(PipelineSchema, 'The pipeline with the stage changed'),
    201: json(PipelineSchema, 'The pipeline with the new stage'),
    409: problem('`stage_in_use`: deals sit on the stage, so its kind does not change'),
  },
});
const deleteStageRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/pipelines/{key}/stages/{stage}',
  summary: 'Delete a stage no deal sits on',
  request: { params: stageParams },
  responses: { 204: { description: 'Deleted' }, 409: problem('`stage_in_use`: deals sit on the stage') },
});

const listPipelinesHandler: Handler<typeof list> = async function listCompanyPipelines(c) {
  const { company_id } = c.req.valid('param');
  const db = c.var.services.db;
  await findCompany(db, company_id);
  return c.json({ results: await listPipelines(db, company_id), next_cursor: null }, 200);
};

const addPipeline: Handler<typeof add> = async function addPipeline(c) {
  const { company_id } = c.req.valid('param');
  return c.json(await createPipeline(c.var.services.db, company_id, c.req.valid('json')), 201);
};

const patchPipeline: Handler<typeof patch> = async function patchPipeline(c) {
  const { company_id, key } = c.req.valid('param');
  return c.json(await updatePipeline(c.var.services.db, company_id, key, c.req.valid('json')), 200);
};

const putPipelineStage: Handler<typeof putStageRoute> = async function putPipelineStage(c) {
  const { company_id, key, stage } = c.req.valid('param');
  const { created, view } = await putStage(c.var.services.db, company_id, key, stage, c.req.valid('json'));
  return created ? c.json(view, 201) : c.json(view, 200);
};

const deletePipelineStage: Handler<typeof deleteStageRoute> = async function deletePipelineStage(c) {
  const { company_id, key, stage } = c.req.valid('param');
  await deleteStage(c.var.services.db, company_id, key, stage);
  return c.body(null, 204);
};

/** The pipelines' admin routes: the company manages its pipelines here (read-only through the public API). */
export const pipelinesAdmin = createRouter()
  .openapi(list, listPipelinesHandler)
  .openapi(add, addPipeline)
  .openapi(patch, patchPipeline)
  .openapi(putStageRoute, putPipelineStage)
  .openapi(deleteStageRoute, deletePipelineStage);
