import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Stable, snake_case problem codes. The HTTP status of each is fixed here, in one place. */
export const problemStatus = {
  invalid_request: 400,
  invalid_cursor: 400,
  invalid_json: 400,
  // Dates a holiday home cannot take (quote and booking); see functions/stay/rules.ts.
  min_nights: 400,
  max_nights: 400,
  arrival_day: 400,
  departure_day: 400,
  notice: 400,
  advance: 400,
  unavailable: 400,
  guests: 400,
  window_too_long: 400,
  // A signed receiver's message whose signature is missing, wrong or out of its time (the provider's answers).
  signature_rejected: 401,
  forbidden: 403,
  key_required: 403,
  key_invalid: 403,
  key_revoked: 403,
  key_wrong_company: 403,
  key_wrong_kind: 403,
  key_wrong_header: 403,
  scope_missing: 403,
  origin_not_allowed: 403,
  lead_type_not_allowed: 403,
  challenge_failed: 403,
  admin_token_invalid: 403,
  signature_invalid: 403,
  not_found: 404,
  unknown_host: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_transition: 409,
  lease_terms_locked: 409,
  lease_home_occupied: 409,
  payment_settled: 409,
  payment_bounced: 409,
  tax_rate_missing: 409,
  payment_not_bounced: 409,
  mandate_reference_taken: 409,
  mandate_unusable: 409,
  stage_in_use: 409,
  contractor_stopped: 409,
  charge_fixed: 409,
  accounts_not_mapped: 409,
  payment_account_missing: 409,
  payment_mismatch: 409,
  nothing_due: 409,
  idempotency_in_flight: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  delivery_failed: 502,
  encryption_unavailable: 503,
  spam_check_unavailable: 503,
  provider_unavailable: 503,
  provider_refused: 502,
  // Readiness (GET /health/ready, lib/health.ts): the database unreachable or behind the code's migrations.
  not_ready: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ProblemCode = keyof typeof problemStatus;

export type FieldError = { path: string; code: string; message: string };

const titles: Record<ProblemCode, string> = {
  invalid_request: 'Invalid request',
  invalid_cursor: 'Invalid cursor',
  invalid_json: 'Malformed JSON body',
  min_nights: 'Too few nights',
  max_nights: 'Too many nights',
  arrival_day: 'Closed arrival day',
  departure_day: 'Closed departure day',
  notice: 'Too short notice',
  advance: 'Too far in advance',
  unavailable: 'Dates unavailable',
  guests: 'Too many guests',
  window_too_long: 'Window too long',
  signature_rejected: 'Signature rejected',
  forbidden: 'Forbidden',
  key_required: 'A key is required',
  key_invalid: 'Unknown key',
  key_revoked: 'Revoked key',
  key_wrong_company: 'Key of another company',
  key_wrong_kind: 'Wrong kind of key',
  key_wrong_header: 'Key in the wrong header',
  scope_missing: 'Missing scope',
  origin_not_allowed: 'Origin not allowed',
  lead_type_not_allowed: 'Lead type not allowed',
  challenge_failed: 'Spam check failed',
  admin_token_invalid: 'Invalid admin token',
  signature_invalid: 'Invalid signature',
  not_found: 'Not found',
  unknown_host: 'Unknown host',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  invalid_transition: 'Invalid transition',
  lease_terms_locked: 'Lease terms locked',
  lease_home_occupied: 'Home already leased',
  payment_settled: 'Payment settled',
  payment_bounced: 'Payment bounced',
  tax_rate_missing: 'No tax rate in force',
  payment_not_bounced: 'Payment not bounced',
  mandate_reference_taken: 'Mandate reference taken',
  mandate_unusable: 'Mandate unusable',
  stage_in_use: 'Stage in use',
  contractor_stopped: 'Contractor stopped',
  charge_fixed: 'Charge fixed',
  accounts_not_mapped: 'Accounts not mapped',
  payment_account_missing: 'No payment account',
  payment_mismatch: 'Payment mismatch',
  nothing_due: 'Nothing due',
  idempotency_in_flight: 'Request in flight',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused',
  rate_limited: 'Too many requests',
  internal_error: 'Internal error',
  delivery_failed: 'Delivery failed',
  encryption_unavailable: 'Encryption unavailable',
  spam_check_unavailable: 'Spam check unavailable',
  provider_unavailable: 'Payment provider unavailable',
  provider_refused: 'Payment provider refused',
  not_ready: 'Not ready',
};

/** The one error type of the API. Thrown anywhere, rendered once by the app's error handler. */
export class ApiError extends Error {
  readonly code: ProblemCode;
  readonly status: ContentfulStatusCode;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  /** `invalid_transition` only (lib/transitions.ts): the statuses the record may move to from where it is. */
  readonly allowed?: readonly string[];

  constructor(
    code: ProblemCode,
    detail?: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string>; allowed?: readonly string[] } = {},
  ) {
    super(detail ?? titles[code]);
    this.code = code;
    this.status = problemStatus[code];
    this.errors = extra.errors;
    this.headers = extra.headers;
    this.allowed = extra.allowed;
  }
}

export function problemTitle(code: ProblemCode): string {
  return titles[code];
}

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  errors?: FieldError[];
  allowed?: string[];
};

/**
 * A problem's body. `typeBase` ends with a slash: the deployment's PROBLEM_TYPE_BASE_URL, or /problems/ on the host
 * asked (lib/problem-pages.ts, problemTypeBaseFor), where each code's page is served.
 */
export function problemBody(error: ApiError, requestId: string, typeBase: string): ProblemBody {
  const body: ProblemBody = {
    type: typeBase + error.code,
    title: titles[error.code],
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors) body.errors = error.errors;
  if (error.allowed) body.allowed = [...error.allowed];
  return body;
}

export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} was not found.`);
}
