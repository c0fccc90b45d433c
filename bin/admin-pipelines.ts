import { readFile } from 'node:fs/promises';

/** The pipeline commands of the admin CLI (bin/admin.ts): pipelines and their stages. */
export const pipelineUsage = `  pipelines list <company>
  pipelines add <company> <file.json>        a pipeline with its stages ({key, name, purpose, stages})
  pipelines update <company> <key> [--name-en N] [--name-ar N] [--purpose sales|leasing] [--position P]
  stages put <company> <pipeline> <stage> --name-en N [--name-ar N] --kind open|won|lost --probability P [--position P]
  stages delete <company> <pipeline> <stage>  (refused while a deal sits on it)`;

export type PipelineOptions = {
  'name-en'?: string;
  'name-ar'?: string;
  purpose?: string;
  position?: string;
  kind?: string;
  probability?: string;
};

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** A whole number option, or undefined when absent. */
function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value)) throw new Error(`${name} takes a whole number.`);
  return Number(value);
}

function nameOf(opts: PipelineOptions) {
  if (opts['name-en'] === undefined) return undefined;
  return { en: opts['name-en'], ...(opts['name-ar'] ? { ar: opts['name-ar'] } : {}) };
}

/** Runs `pipelines …` or `stages …`; undefined when the command is not one of them. */
export function pipelineCommand(
  command: string,
  arg: (i: number, what: string) => string,
  opts: PipelineOptions,
  call: Call,
): Promise<unknown> | undefined {
  const company = () => `/companies/${encodeURIComponent(arg(2, '<company>'))}`;
  const pipeline = () => `${company()}/pipelines/${encodeURIComponent(arg(3, '<pipeline>'))}`;
  const stage = () => `${pipeline()}/stages/${encodeURIComponent(arg(4, '<stage>'))}`;
  const position = integer(opts.position, '--position');
  switch (command) {
    case 'pipelines list':
      return call('GET', `${company()}/pipelines`);
    case 'pipelines add':
      return readFile(arg(3, '<file.json>'), 'utf8').then((text) => call('POST', `${company()}/pipelines`, JSON.parse(text)));
    case 'pipelines update':
      return call('PATCH', pipeline(), {
        ...(nameOf(opts) ? { name: nameOf(opts) } : {}),
        ...(opts.purpose ? { purpose: opts.purpose } : {}),
        ...(position !== undefined ? { position } : {}),
      });
    case 'stages put':
      return call('PUT', stage(), {
        name: nameOf(opts),
        kind: opts.kind,
        probability: integer(opts.probability, '--probability'),
        ...(position !== undefined ? { position } : {}),
      });
    case 'stages delete':
      return call('DELETE', stage());
    default:
      return undefined;
  }
}
