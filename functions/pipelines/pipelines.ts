import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { localised } from '../../lib/localise';
import type { LocalisedText } from '../../schema/common/columns';
import type { PipelineInputValue, PipelinePatchValue, PipelineView, StageInputValue } from '../../schema/pipelines/pipelines';

/**
 * Pipelines and their stages: read by GET /pipelines, managed by the admin API (create, reorder, rename, add or
 * change a stage, delete a stage no deal sits on). Positions are rewritten 0…n-1 on every reorder, so the order is
 * always (position, created_at).
 */

/** Every pipeline of the company in order, each with its stages in order, names in both languages. */
export async function listPipelines(db: Executor, companyId: string): Promise<PipelineView[]> {
  const pipelines = await db
    .selectFrom('pipelines')
    .select(['id', 'key', 'name', 'purpose'])
    .where('company_id', '=', companyId)
    .orderBy('position')
    .orderBy('created_at')
    .execute();
  const stages = await db
    .selectFrom('pipeline_stages')
    .select(['pipeline_id', 'key', 'name', 'kind', 'probability'])
    .where('company_id', '=', companyId)
    .orderBy('position')
    .orderBy('created_at')
    .execute();
  return pipelines.map((pipeline) => ({
    key: pipeline.key,
    name: localised(pipeline.name),
    purpose: pipeline.purpose,
    stages: stages
      .filter((stage) => stage.pipeline_id === pipeline.id)
      .map((stage) => ({ key: stage.key, name: localised(stage.name), kind: stage.kind, probability: stage.probability })),
  }));
}

/**
 * Adds a pipeline with its stages (409 `conflict` when the key is taken), at `position` or last, and answers it: one
 * statement (docs/invariants.md, "Writes"): the company read (404 when there is none), its pipelines' bare rows locked,
 * the pipeline and its stages inserted, the others moved around it.
 */
export async function createPipeline(db: Executor, companyId: string, input: PipelineInputValue): Promise<PipelineView> {
  const position = input.position ?? null;
  const stages = JSON.stringify(input.stages.map((stage, at) => ({ ...stage, name: JSON.stringify(stage.name), position: at })));
  const { rows } = await sql<{ company: boolean }>`
    with company as (select id from companies where id = ${companyId}),
    locked as (
      select id, position, created_at from pipelines where company_id = (select id from company) for update
    ),
    others as (
      select id, position, (row_number() over (order by position, created_at))::int - 1 as idx from locked
    ),
    target as (
      select coalesce(least(${position}::int, (select count(*) from others)::int), (select count(*) from others)::int) as at
    ),
    ${movedAround('pipelines', sql`${position}::int is not null`)},
    inserted as (
      insert into pipelines (company_id, key, name, purpose, position)
      select c.id, ${input.key}, ${JSON.stringify(input.name)}::jsonb, ${input.purpose}, (select at from target)
      from company c
      returning id
    ),
    staged as (
      insert into pipeline_stages (company_id, pipeline_id, key, name, kind, probability, position)
      select ${companyId}, i.id, s.key, s.name::jsonb, s.kind, s.probability, s.position
      from inserted i
      cross join jsonb_to_recordset(${stages}::jsonb) as s(key text, name text, kind text, probability int, position int)
      returning id
    )
    select exists (select 1 from company) as company`.execute(db);
  if (!rows[0]?.company) throw notFound(`The company ${companyId}`);
  return {
    key: input.key,
    name: localised(input.name),
    purpose: input.purpose,
    stages: input.stages.map((stage) => ({
      key: stage.key,
      name: localised(stage.name),
      kind: stage.kind,
      probability: stage.probability,
    })),
  };
}

type StageRow = { key: string; name: LocalisedText; kind: PipelineView['stages'][number]['kind']; probability: number };
type PipelineRow = { key: string; name: LocalisedText; purpose: PipelineView['purpose']; stages: StageRow[] };

/**
 * The `moved` CTE of a reorder: the rows of `others` (each with its 0-based `idx` among them) renumbered around the
 * slot `target.at`, those before it keeping their index and the rest shifting one on; only rows whose position
 * changes are written, and only `when` holds.
 */
function movedAround(table: 'pipelines' | 'pipeline_stages', when: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
  return sql`moved as (
      update ${sql.table(table)} t set position = case when o.idx < (select at from target) then o.idx else o.idx + 1 end
      from others o
      where (${when}) and t.id = o.id and t.position <> case when o.idx < (select at from target) then o.idx else o.idx + 1 end
      returning t.id
    )`;
}

/** The stages of the pipeline row `alias` as a JSON array in order (`[]` when it has none). */
function stagesOf(alias: string): RawBuilder<StageRow[]> {
  return sql<StageRow[]>`coalesce((
        select json_agg(json_build_object('key', s.key, 'name', s.name, 'kind', s.kind, 'probability', s.probability)
          order by s.position, s.created_at)
        from pipeline_stages s where s.pipeline_id = ${sql.ref(`${alias}.id`)}
      ), '[]'::json)`;
}

/** A pipeline read with {@link stagesOf}, names in both languages; 404 when there is none. */
function presentPipeline(row: PipelineRow | undefined, key: string): PipelineView {
  if (!row) throw notFound(`The pipeline ${key}`);
  return {
    key: row.key,
    name: localised(row.name),
    purpose: row.purpose,
    stages: row.stages.map((stage) => ({ ...stage, name: localised(stage.name) })),
  };
}

/**
 * Renames a pipeline, changes its purpose, or moves it to another position (the company's other pipelines rewritten
 * 0…n-1 around it), and answers it with its stages: one statement (docs/invariants.md, "Writes"), the company's
 * pipelines' bare rows locked first when it moves (its own row alone otherwise).
 */
export async function updatePipeline(
  db: Executor,
  companyId: string,
  key: string,
  input: PipelinePatchValue,
): Promise<PipelineView> {
  const position = input.position ?? null;
  const name = input.name ? JSON.stringify(input.name) : null;
  const { rows } = await sql<PipelineRow>`
    with locked as (
      select id, key, position, created_at from pipelines
      where company_id = ${companyId} and (key = ${key} or ${position}::int is not null)
      for update
    ),
    pipeline as (select id from locked where key = ${key}),
    others as (
      select id, position, (row_number() over (order by position, created_at))::int - 1 as idx
      from locked where ${position}::int is not null and exists (select 1 from pipeline) and key <> ${key}
    ),
    target as (select least(${position}::int, (select count(*) from others)::int) as at),
    ${movedAround('pipelines')},
    changed as (
      update pipelines p set
        name = coalesce(${name}::jsonb, p.name),
        purpose = coalesce(${input.purpose ?? null}, p.purpose),
        position = coalesce((select at from target), p.position)
      where p.id = (select id from pipeline)
      returning p.id, p.key, p.name, p.purpose
    )
    select c.key, c.name, c.purpose, ${stagesOf('c')} as stages
    from changed c`.execute(db);
  return presentPipeline(rows[0], key);
}

/** The company's pipeline by key with its stages in order, in one read (404 when there is none). */
async function pipelineView(db: Executor, companyId: string, key: string): Promise<PipelineView> {
  const { rows } = await sql<PipelineRow>`
    select p.key, p.name, p.purpose, ${stagesOf('p')} as stages
    from pipelines p where p.company_id = ${companyId} and p.key = ${key}`.execute(db);
  return presentPipeline(rows[0], key);
}

/**
 * Adds a stage to a pipeline (last unless `position` says otherwise) or changes one: its name, probability and
 * position at any time; its kind only while no deal sits on it (409 `stage_in_use`: a deal's status is its
 * stage's kind, and would change without a move). One statement (the pipeline's bare row locked, then its stages),
 * then the pipeline read for the answer. Returns whether the stage is new, with the pipeline.
 */
export async function putStage(
  db: Executor,
  companyId: string,
  pipelineKey: string,
  stageKey: string,
  input: StageInputValue,
): Promise<{ created: boolean; view: PipelineView }> {
  const position = input.position ?? null;
  const { rows } = await sql<{ pipeline: boolean; created: boolean; used: boolean; kind: string | null }>`
    with pipeline as (
      select id from pipelines where company_id = ${companyId} and key = ${pipelineKey} for update
    ),
    locked as (
      select id, key, kind, position, created_at from pipeline_stages
      where pipeline_id = (select id from pipeline) for update
    ),
    current as (select id, kind from locked where key = ${stageKey}),
    used as (
      select 1 from deals
      where stage_id = (select id from current) and (select kind from current) <> ${input.kind} limit 1
    ),
    others as (
      select id, position, (row_number() over (order by position, created_at))::int - 1 as idx
      from locked where ${position}::int is not null and key <> ${stageKey} and not exists (select 1 from used)
    ),
    target as (
      select coalesce(least(${position}::int, (select count(*) from others)::int), (select count(*) from locked)::int) as at
    ),
    ${movedAround('pipeline_stages')},
    inserted as (
      insert into pipeline_stages (company_id, pipeline_id, key, name, kind, probability, position)
      select ${companyId}, p.id, ${stageKey}, ${JSON.stringify(input.name)}::jsonb, ${input.kind}, ${input.probability},
        (select at from target)
      from pipeline p where not exists (select 1 from current)
      returning id
    ),
    updated as (
      update pipeline_stages s set name = ${JSON.stringify(input.name)}::jsonb, kind = ${input.kind},
        probability = ${input.probability},
        position = case when ${position}::int is null then s.position else (select at from target) end
      where s.id = (select id from current) and not exists (select 1 from used)
      returning s.id
    )
    select exists (select 1 from pipeline) as pipeline, exists (select 1 from inserted) as created,
      exists (select 1 from used) as used, (select kind from current) as kind`.execute(db);
  const found = rows[0];
  if (!found?.pipeline) throw notFound(`The pipeline ${pipelineKey}`);
  if (found.used) {
    throw new ApiError('stage_in_use', `Deals sit on the stage ${stageKey}: its kind stays ${found.kind}.`);
  }
  return { created: found.created, view: await pipelineView(db, companyId, pipelineKey) };
}

/** PostgreSQL's foreign_key_violation: a deal moved onto the stage while it was being deleted. */
function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
}

/**
 * Deletes a stage no deal sits on (409 `stage_in_use` otherwise; the foreign key refuses it too, when a deal moves
 * onto it meanwhile) and closes the gap in its pipeline's positions: one statement (docs/invariants.md, "Writes"),
 * the pipeline's bare row locked first, then its stage.
 */
export async function deleteStage(db: Executor, companyId: string, pipelineKey: string, stageKey: string): Promise<void> {
  let found: { pipeline: boolean; stage: boolean; used: boolean } | undefined;
  try {
    const { rows } = await sql<{ pipeline: boolean; stage: boolean; used: boolean }>`
      with pipeline as (
        select id from pipelines where company_id = ${companyId} and key = ${pipelineKey} for update
      ),
      stage as (
        select s.id from pipeline_stages s
        where s.pipeline_id = (select id from pipeline) and s.key = ${stageKey} for update
      ),
      used as (select 1 from deals where stage_id = (select id from stage) limit 1),
      removed as (
        delete from pipeline_stages where id = (select id from stage) and not exists (select 1 from used) returning id
      ),
      rest as (
        select id, position, (row_number() over (order by position, created_at))::int - 1 as placed
        from pipeline_stages
        where pipeline_id = (select id from pipeline) and exists (select 1 from removed)
          and id <> (select id from removed)
      ),
      moved as (
        update pipeline_stages s set position = rest.placed from rest
        where s.id = rest.id and s.position <> rest.placed returning s.id
      )
      select exists (select 1 from pipeline) as pipeline, exists (select 1 from stage) as stage,
        exists (select 1 from used) as used`.execute(db);
    found = rows[0];
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    throw new ApiError('stage_in_use', `Deals sit on the stage ${stageKey}: move them first.`);
  }
  if (!found?.pipeline) throw notFound(`The pipeline ${pipelineKey}`);
  if (!found.stage) throw notFound(`The stage ${stageKey} of ${pipelineKey}`);
  if (found.used) throw new ApiError('stage_in_use', `Deals sit on the stage ${stageKey}: move them first.`);
}
