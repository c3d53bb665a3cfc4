import { badRequest } from '../../errors.ts';
import { FORBIDDEN_KEYS_MESSAGE, forbiddenStep } from '../../json/request-json.ts';

/**
 * Patch paths: attribute names joined by dots, `[n]` array indexes (negative counts
 * from the end) and `[_key=="k"]` selectors, e.g. `body[_key=="a1"].children[0].text`.
 */
export type PathSegment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'key'; key: string };

const FIELD = /^[A-Za-z_$][A-Za-z0-9_$-]*/;
const INDEX = /^\[\s*(-?\d+)\s*\]/;
const KEY = /^\[\s*_key\s*==\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]/;
const QUOTED_FIELD = /^\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]/;

const cache = new Map<string, PathSegment[]>();

export function parsePath(path: string): PathSegment[] {
  const cached = cache.get(path);
  if (cached) return cached;
  const segments: PathSegment[] = [];
  let rest = path.trim();
  let expectField = true;
  while (rest.length > 0) {
    let match: RegExpExecArray | null;
    if (expectField && (match = FIELD.exec(rest))) {
      segments.push({ kind: 'field', name: match[0] });
    } else if ((match = INDEX.exec(rest))) {
      segments.push({ kind: 'index', index: Number(match[1]) });
    } else if ((match = KEY.exec(rest))) {
      segments.push({ kind: 'key', key: unescape(match[1] ?? match[2] ?? '') });
    } else if ((match = QUOTED_FIELD.exec(rest))) {
      segments.push({ kind: 'field', name: unescape(match[1] ?? match[2] ?? '') });
    } else {
      throw badRequest(`invalid path "${path}" at "${rest}": use fields, [index] or [_key=="key"]`);
    }
    rest = rest.slice(match[0].length);
    expectField = false;
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      expectField = true;
      if (!FIELD.test(rest)) throw badRequest(`invalid path "${path}": a field name must follow "."`);
    }
  }
  if (segments.length === 0) throw badRequest('a patch path must not be empty');
  // The same rule as for keys in request bodies, at any depth (quoted forms included).
  if (forbiddenStep(segments.map((segment) => (segment.kind === 'field' ? segment.name : ''))) !== undefined) {
    throw badRequest(`invalid path "${path}": ${FORBIDDEN_KEYS_MESSAGE}`);
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(path, segments);
  return segments;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}
