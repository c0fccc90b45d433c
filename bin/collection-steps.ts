/**
 * The steps of the run the Postman collection makes (bin/collection.ts builds it; the steps themselves are in
 * collection-front-office.ts and collection-back-office.ts): every operation of the public document, in an order where
 * each record is created before it is read, changed or moved, with what each request must answer on the demo company
 * (`npm start`). A step's body replaces the operation's example where the example names records a company does not
 * have, or dates that pass; `{{variables}}` are set by earlier steps (captured from their answers) or computed at run
 * time (the collection's pre-request script: `{{today}}`, `{{in14Days}}`, `{{nowSeconds}}`, …).
 *
 * A new operation in the document must be placed in a step: bin/collection.ts refuses a document with an operation no
 * step names (test/e2e/collection.test.ts runs the whole collection with newman against `npm start`).
 */
export type Step = {
  /** The operation, by its operationId. */
  operation: string;
  /** The status it must answer on the demo company (one of the operation's documented 2xx/3xx). */
  expect: number;
  /** The request's name, where not the operation's summary (a step the run adds: a second job, a bounce). */
  name?: string;
  /** The body, in place of the operation's example. */
  body?: unknown;
  /** Query parameters, in place of the required ones with their examples. */
  query?: Record<string, string>;
  /** A path parameter's variable, where not the record's own (`token` → `whatsappToken`). */
  path?: Record<string, string>;
  /** Headers beside the key, Idempotency-Key and Content-Type. */
  headers?: Record<string, string>;
  /** Pre-request script lines. */
  before?: string[];
  /** Test script lines after the status check (variables captured from the answer). */
  after?: string[];
  /** false: this create does not set its record's variable (the step makes a second record of the same kind). */
  capture?: false;
};
export type Folder = { name: string; description?: string; steps: Step[] };

/** Before every request: the moment's dates (UTC days from now) and times, for bodies and queries. */
export const everyRequest = [
  "// This moment's dates and times: {{today}}, {{in7Days}} … {{in90Days}} (UTC days), {{nowSeconds}}, {{nowIso}}.",
  'const day = (n) => new Date(Date.now() + n * 864e5).toISOString().slice(0, 10);',
  "pm.collectionVariables.set('today', day(0));",
  "for (const n of [7, 10, 11, 14, 30, 90]) pm.collectionVariables.set('in' + n + 'Days', day(n));",
  "pm.collectionVariables.set('nowSeconds', String(Math.floor(Date.now() / 1000)));",
  "pm.collectionVariables.set('nowIso', new Date().toISOString());",
];

export const set = (variable: string, expression: string) => `pm.collectionVariables.set('${variable}', ${expression});`;
export const json = 'const answer = pm.response.json();';

/** A signature of the raw body as sent (its variables resolved), set as the local variable `name`. */
export const hmac = (name: string, secret: string, prefix: string) => [
  "const hash = require('crypto-js');",
  'const body = pm.variables.replaceIn(pm.request.body.raw);',
  `pm.variables.set('${name}', '${prefix}' + hash.HmacSHA256(body, pm.variables.get('${secret}')).toString(hash.enc.Hex));`,
];
