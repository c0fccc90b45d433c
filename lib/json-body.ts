import { ApiError } from './errors';

/**
 * The one guard on bodies that arrive (docs/api-reference.md, "Errors"): bounded in size (the app's body limits,
 * lib/app.ts) and in depth, read before anything parses them. JSON.parse itself is iterative, but what reads a value
 * afterwards walks it by recursion (a schema, the text checks of lib/request-errors.ts, an inbound payload made storable): a body
 * nested thousands deep would overflow the stack there (a 500). No body this API takes nests more than a few levels.
 */

/** How deep arrays and objects may nest in a body: far above any body this API or an inbound source sends. */
export const maxJsonDepth = 64;

const quote = 0x22;
const backslash = 0x5c;
const [openArray, openObject, closeArray, closeObject] = [0x5b, 0x7b, 0x5d, 0x7d];

/**
 * Whether a body's arrays and objects nest deeper than `max`, read byte by byte without parsing (brackets inside
 * strings do not count; UTF-8 never uses these bytes inside a multi-byte character). Linear, whatever the body holds.
 */
export function nestsDeeperThan(bytes: Uint8Array, max = maxJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (inString) {
      if (byte === backslash) i++;
      else if (byte === quote) inString = false;
    } else if (byte === quote) inString = true;
    else if (byte === openArray || byte === openObject) {
      if (++depth > max) return true;
    } else if (byte === closeArray || byte === closeObject) depth--;
  }
  return false;
}

/** The problem of a body nested too deep: 400 `invalid_json`, before anything parsed it. */
export function tooDeep(): ApiError {
  return new ApiError('invalid_json', `The body nests arrays and objects deeper than ${maxJsonDepth} levels.`);
}

/** Refuses (400 `invalid_json`) a body that nests deeper than the guard allows. */
export function checkJsonDepth(bytes: Uint8Array): void {
  if (nestsDeeperThan(bytes)) throw tooDeep();
}

/**
 * A body read as JSON after the guard: its depth checked first, then UTF-8 (strictly) and JSON.parse; 400
 * `invalid_json` when it is not JSON. For bodies a handler reads itself (the inbound receivers verify the raw bytes first).
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  checkJsonDepth(bytes);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError('invalid_json', 'The body is not JSON.');
  }
}
