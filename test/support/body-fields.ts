import fc from 'fast-check';

/**
 * The request bodies of an OpenAPI document, field by field: every string and number a body takes (at any depth, in
 * arrays, records and each alternative of a union), with the way down to it, and bodies built from the schemas that
 * carry a chosen value at one field. The no-500 properties send bad values to every field of every route this way,
 * so a route is covered as it lands in the documents.
 */

type Schema = Record<string, any>;
export type Doc = any;

/** A string or number field of a body: its path, the object/array schema of each step down, and its own schema. */
export type BodyField = {
  path: Array<string | number>;
  steps: Schema[];
  leaf: Schema;
  /** Whether a step down chose one alternative of a union (an error may then be reported at the union). */
  inUnion: boolean;
  /** Whether another alternative of the field takes free text (then a bad number is text, not an error). */
  takesText: boolean;
};

export type BodyOperation = {
  method: string;
  path: string;
  access: { kind: string };
  params: Array<{ name: string; schema: Schema }>;
  fields: BodyField[];
};

const resolve = (doc: Doc, schema: Schema): Schema =>
  schema?.$ref ? resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()]) : schema;
const types = (schema: Schema): string[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/** What a schema can be: each branch of anyOf/oneOf (null left out), allOf merged, else itself. */
function alternatives(doc: Doc, given: Schema): Schema[] {
  const schema = resolve(doc, given);
  if (!schema || typeof schema !== 'object') return [];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.flatMap((b: Schema) => alternatives(doc, b));
  if (schema.allOf) {
    const { allOf, ...rest } = schema;
    return allOf.flatMap((part: Schema) => alternatives(doc, part).map((a) => ({ ...a, ...rest })));
  }
  if (schema.type === 'null' || schema.enum?.every((v: unknown) => v === null)) return [];
  return [schema];
}

/** A field number-like: a number, a date or instant, or a string whose pattern takes digits (amounts, clock times). */
export const numberLike = (leaf: Schema) =>
  types(leaf).some((t) => t === 'number' || t === 'integer') ||
  ['date', 'date-time', 'time'].includes(leaf.format) ||
  String(leaf.pattern ?? '').includes('\\d');
/** A string field (free text, a key, a reference, a format, an enum). */
export const stringField = (leaf: Schema) => types(leaf).includes('string');
/** Free text: a string with no enum, format or pattern. */
export const plainText = (leaf: Schema) =>
  stringField(leaf) && !leaf.enum && leaf.const === undefined && !leaf.format && !leaf.pattern;

function fieldsOf(doc: Doc, schema: Schema, path: BodyField['path'], steps: Schema[], inUnion: boolean, out: BodyField[]) {
  const options = alternatives(doc, schema);
  if (path.length > 10) return;
  for (const alt of options) {
    const union = inUnion || options.length > 1;
    const kinds = types(alt);
    if (alt.properties || kinds.includes('object')) {
      for (const [key, value] of Object.entries(alt.properties ?? {}))
        fieldsOf(doc, value as Schema, [...path, key], [...steps, alt], union, out);
      if (alt.additionalProperties && typeof alt.additionalProperties === 'object')
        fieldsOf(doc, alt.additionalProperties, [...path, 'fuzz_note'], [...steps, alt], union, out);
    }
    if (kinds.includes('array') && alt.items) fieldsOf(doc, alt.items, [...path, 0], [...steps, alt], union, out);
    if (kinds.some((t) => t === 'string' || t === 'number' || t === 'integer') && path.length > 0)
      out.push({ path, steps, leaf: alt, inUnion: union, takesText: options.some(plainText) });
  }
}

/** Every operation of the document with a JSON body, and the fields of its body. */
export function bodyOperations(doc: Doc): BodyOperation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (!body) return [];
      const fields: BodyField[] = [];
      fieldsOf(doc, body, [], [], false, fields);
      const params = (op.parameters ?? []).filter((p: Schema) => p.in === 'path');
      return [{ method: method.toUpperCase(), path, access: op['x-access'] ?? { kind: 'public' }, params, fields }];
    }),
  );
}

/** Picks one of `n` choices (enum values, union branches); varied by the caller to reach each over several runs. */
export type Pick = (n: number) => number;

const stringOfPattern = (pattern: string) =>
  fc.sample(fc.stringMatching(new RegExp(pattern)), { numRuns: 1, seed: 42 })[0] as string;

/** A value the schema takes (as far as its JSON Schema says). */
export function sample(doc: Doc, schema: Schema, pick: Pick): unknown {
  const options = alternatives(doc, schema);
  const alt = options[pick(options.length)];
  if (!alt) return null;
  if (alt.const !== undefined) return alt.const;
  if (alt.enum) return alt.enum[pick(alt.enum.length)];
  const kind = types(alt).find((t) => t !== 'null');
  if (kind === 'object' || alt.properties) return requiredOf(doc, alt, pick);
  if (kind === 'array') return Array.from({ length: alt.minItems ?? 0 }, () => sample(doc, alt.items, pick));
  if (kind === 'boolean') return true;
  if (kind === 'number' || kind === 'integer') return Math.min(Math.max(1, alt.minimum ?? 1), alt.maximum ?? 1);
  const formatted: Record<string, string> = {
    date: '2027-03-01',
    'date-time': '2027-03-01T10:00:00Z',
    email: 'fuzz@example.com',
    uri: 'https://example.com/fuzz',
    uuid: '00000000-0000-4000-8000-000000000000',
  };
  if (alt.format && formatted[alt.format]) return formatted[alt.format];
  if (alt.pattern) return stringOfPattern(alt.pattern);
  return 'Fuzz'.padEnd(alt.minLength ?? 0, 'z').slice(0, alt.maxLength ?? 100);
}

function requiredOf(doc: Doc, object: Schema, pick: Pick): Record<string, unknown> {
  const required: string[] = object.required ?? [];
  return Object.fromEntries(required.map((key) => [key, sample(doc, object.properties?.[key] ?? {}, pick)]));
}

/** A body of the operation with `value` at the field and what each object on the way requires. */
export function bodyWith(doc: Doc, field: BodyField, value: unknown, pick: Pick): unknown {
  const down = (i: number): unknown => {
    if (i === field.path.length) return value;
    const step = field.steps[i] as Schema;
    if (types(step).includes('array') && !step.properties) return [down(i + 1)];
    return { ...requiredOf(doc, step, pick), [field.path[i] as string]: down(i + 1) };
  };
  return down(0);
}

/** The operation's path with each parameter sampled from its schema (`company_id`: the company's id). */
export function pathOf(doc: Doc, op: BodyOperation, companyId: string, pick: Pick): string {
  return op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (name === 'company_id') return companyId;
    const param = op.params.find((p) => p.name === name);
    return encodeURIComponent(String(sample(doc, param?.schema ?? {}, pick)));
  });
}
