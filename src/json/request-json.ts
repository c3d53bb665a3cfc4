import secureJson from 'secure-json-parse';
import { badRequest } from '../errors.ts';

/**
 * The one rule for keys that arrive in a request (docs/decisions.md, "Request keys are data"):
 * `__proto__` is never a key, and an object under `constructor` never holds `prototype`. These
 * are the two shapes prototype-pollution attacks use and no real content needs. Fastify's JSON
 * body parser refuses them; this module applies the same rule to every other way a key enters:
 * NDJSON lines, `$param` values in query strings, listener messages, patch paths.
 */
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

export const FORBIDDEN_KEYS_MESSAGE = 'the key "__proto__" (or "prototype" inside "constructor") is not allowed in request data';

/** JSON text from a request, parsed under the rule; a SyntaxError for malformed or forbidden input. */
export function parseRequestJson(text: string): unknown {
  try {
    return secureJson.parse(text, undefined, PARSE_OPTIONS);
  } catch (error) {
    if (error instanceof SyntaxError) {
      // secure-json-parse reports a forbidden key as a SyntaxError too: name the rule instead.
      throw /prototype property/i.test(error.message) ? new SyntaxError(FORBIDDEN_KEYS_MESSAGE) : error;
    }
    throw error;
  }
}

/** As parseRequestJson, answering 400 with `what` named in the message. */
export function parseRequestJsonOr400(text: string, what: string): unknown {
  try {
    return parseRequestJson(text);
  } catch (error) {
    throw badRequest(`${what} must be valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The first step of `names` that breaks the rule, as a path, or undefined: for patch paths. */
export function forbiddenStep(names: readonly string[]): string | undefined {
  for (let i = 0; i < names.length; i++) {
    if (names[i] === '__proto__') return '__proto__';
    if (names[i] === 'constructor' && names[i + 1] === 'prototype') return 'constructor.prototype';
  }
  return undefined;
}
