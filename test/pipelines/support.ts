import type { World } from '../support/world';

/**
 * The stages of one of the world's pipelines through the typed admin client: `put` (add, rename, re-weigh or move;
 * a body as sent, so a test can send what the schema refuses) and `remove`, each answering openapi-fetch's
 * `{ data, error, response }`. Made when the file is collected; the world is read at each call.
 */
export function stagesOf(w: World, pipeline: string) {
  const at = (stage: string) => ({ path: { company_id: w.company.id, key: pipeline, stage } });
  return {
    put: (stage: string, body: unknown) =>
      w.adminClient.PUT('/admin/v1/companies/{company_id}/pipelines/{key}/stages/{stage}', {
        params: at(stage),
        body: body as never,
      }),
    remove: (stage: string) =>
      w.adminClient.DELETE('/admin/v1/companies/{company_id}/pipelines/{key}/stages/{stage}', { params: at(stage) }),
  };
}
