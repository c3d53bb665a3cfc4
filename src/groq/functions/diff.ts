// diff:: functions: compare two values at the paths a selector picks.
//   changedAny(a, b, sel): did anything selected change?
//   changedOnly(a, b, sel): did nothing but the selected parts change?
import type { SelectorNode } from '../ast.ts';
import type { Executor, Scope } from '../evaluator/scope.ts';
import { isObject } from '../evaluator/values.ts';
import { argument } from './define.ts';
import type { CallSite, GroqFunction, Namespace } from './types.ts';

type KeyPath = (string | number)[];
/** A compiled selector: the key paths it picks in a value. */
type Select = (value: unknown, scope: Scope) => KeyPath[];

/** The value at a key path; undefined where the path leads nowhere. */
function valueAt(value: unknown, path: KeyPath): unknown {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number' ? Array.isArray(current) : isObject(current)) {
      const container = current as Record<string | number, unknown>;
      current = Object.hasOwn(container, key) ? container[key] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

function compileSelector(node: SelectorNode, site: CallSite): Select {
  switch (node.type) {
    case 'SelectorAttribute': {
      const base = node.base ? compileSelector(node.base, site) : null;
      return (value, scope) => (base ? base(value, scope) : [[]]).map((path) => [...path, node.name]);
    }
    case 'SelectorArray':
    case 'SelectorFilter': {
      const base = compileSelector(node.base, site);
      const keep: Executor | null = node.type === 'SelectorFilter' ? site.compileNested(node.expr) : null;
      return (value, scope) =>
        base(value, scope).flatMap((path) => {
          const array = valueAt(value, path);
          if (!Array.isArray(array)) return [];
          return array.flatMap((item, i) => (!keep || keep(scope.nested(item)) === true ? [[...path, i]] : []));
        });
    }
    case 'SelectorGroup': {
      const base = node.base ? compileSelector(node.base, site) : null;
      const members = node.members.map((m) => compileSelector(m, site));
      return (value, scope) =>
        (base ? base(value, scope) : [[]]).flatMap((path) => {
          const inner = path.length > 0 ? valueAt(value, path) : value;
          return members.flatMap((member) => member(inner, scope).map((sub) => [...path, ...sub]));
        });
    }
    case 'SelectorAnywhere': {
      const test = site.compileNested(node.expr);
      return (value, scope) => anywhere(value, test, scope, []);
    }
  }
}

/** Paths of every object, at any depth, for which `test` is true. */
function anywhere(value: unknown, test: Executor, scope: Scope, path: KeyPath): KeyPath[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => anywhere(item, test, scope, [...path, i]));
  if (!isObject(value)) return [];
  const found = test(scope.nested(value)) === true ? [path] : [];
  return found.concat(Object.keys(value).flatMap((key) => anywhere(value[key], test, scope, [...path, key])));
}

function changedAny(before: unknown, after: unknown, select: Select, scope: Scope): boolean {
  const paths = select(before, scope);
  if (paths.length !== select(after, scope).length) return true;
  for (const path of paths) {
    // An array on the way that changed length counts as changed as a whole.
    for (let i = 0; i < path.length; i++) {
      if (typeof path[i] !== 'number') continue;
      const a = valueAt(before, path.slice(0, i));
      const b = valueAt(after, path.slice(0, i));
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return true;
    }
    if (!deepEqual(valueAt(before, path), valueAt(after, path))) return true;
  }
  return false;
}

/** The paths where `before` and `after` differ, as shallow as possible. */
function differences(before: unknown, after: unknown): KeyPath[] {
  const found: KeyPath[] = [];
  const queue: KeyPath[] = [[]];
  while (queue.length > 0) {
    const path = queue.shift() as KeyPath;
    const a = valueAt(before, path) ?? null;
    const b = valueAt(after, path) ?? null;
    if (deepEqual(a, b)) continue;
    if (isObject(a) && isObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) queue.push([...path, key]);
    } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (let i = 0; i < a.length; i++) queue.push([...path, i]);
    } else {
      found.push(path);
    }
  }
  return found;
}

function changedOnly(before: unknown, after: unknown, select: Select, scope: Scope): boolean {
  const selected = select(before, scope);
  return differences(before, after).every((diff) => selected.some((path) => path.every((key, i) => diff[i] === key)));
}

function diffFunction(test: (before: unknown, after: unknown, select: Select, scope: Scope) => boolean): GroqFunction {
  return {
    arity: [3, 3],
    selectorArgument: 2,
    compile(args, site) {
      const before = argument(args, 0);
      const after = argument(args, 1);
      if (!site.node.selector) throw new Error('BUG: diff function without a selector');
      const select = compileSelector(site.node.selector, site);
      return (scope) => test(before(scope), after(scope), select, scope);
    },
  };
}

export const diffFunctions: Namespace = {
  changedAny: diffFunction(changedAny),
  changedOnly: diffFunction(changedOnly),
};
