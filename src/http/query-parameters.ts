import { badRequest } from '../errors.ts';
import { parseRequestJson } from '../json/request-json.ts';
import { setOwn } from '../json/own-properties.ts';

/**
 * GROQ parameters given in a query string as `$name=<JSON value>`, as Sanity's clients send them
 * (queries and listeners). Values follow the request-JSON rule; names are data (`$constructor` is
 * a parameter like any other).
 */
export function parametersFromQueryString(query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('$') || key.length === 1) continue;
    if (typeof value !== 'string') throw badRequest(`parameter ${key} is given more than once`);
    try {
      setOwn(params, key.slice(1), parseRequestJson(value));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw badRequest(`parameter ${key} must be a JSON value (strings in double quotes: ${key}="text"): ${reason}`);
    }
  }
  return params;
}
