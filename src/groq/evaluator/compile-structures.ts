// Compilers for values and their parts: literals, scopes (`@`, `^`, `*`), parameters, attribute
// access, dereference, object and array construction, function calls and select().
import type { ExprNode, FuncCallNode, ObjectAttribute } from '../ast.ts';
import { findFunction } from '../functions/registry.ts';
import { textUnits } from './budget.ts';
import { compileNode, nestedContext, type CompilerTable, type Context } from './compile.ts';
import { documentById, documentsOf } from './documents.ts';
import type { Executor, Scope } from './scope.ts';
import { assignAttributes, DateTime, isObject, Path, setAttribute } from './values.ts';

type Structures = Pick<
  CompilerTable,
  'Everything' | 'This' | 'Parent' | 'Parameter' | 'Value' | 'Array' | 'Object' | 'Group' | 'AccessAttribute' | 'Deref' | 'FuncCall' | 'Select' | 'Projection'
>;

/** Reads attribute `name` of whatever `base` yields, null unless it is an object that has it. */
function attributeReader(name: string, base: Executor | null): Executor {
  // Names that plain objects inherit (constructor, toString, __proto__) need an own-property
  // check; for all others a missing attribute reads as undefined, which is cheaper to test.
  const inherited = name in Object.prototype;
  const read = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const found = (value as Record<string, unknown>)[name];
    if (found === undefined) return null;
    if (inherited && !Object.hasOwn(value, name)) return null;
    // Datetimes and paths are not objects in GROQ: their fields and methods are not attributes.
    return value instanceof DateTime || value instanceof Path ? null : found;
  };
  return base ? (scope) => read(base(scope)) : (scope) => read(scope.value);
}

function compileObject(attributes: readonly ObjectAttribute[], c: Context): Executor {
  const parts = attributes.map((attribute) => {
    switch (attribute.type) {
      case 'ObjectAttributeValue': {
        const value = compileNode(attribute.value, c);
        const name = attribute.name;
        if (name === '__proto__') return (scope: Scope, out: Record<string, unknown>) => setAttribute(out, name, value(scope));
        return (scope: Scope, out: Record<string, unknown>) => {
          out[name] = value(scope);
        };
      }
      case 'ObjectSplat': {
        const value = compileNode(attribute.value, c);
        return (scope: Scope, out: Record<string, unknown>) => {
          const v = value(scope);
          if (isObject(v)) assignAttributes(out, v);
        };
      }
      case 'ObjectConditionalSplat': {
        const condition = compileNode(attribute.condition, c);
        const value = compileNode(attribute.value, c);
        return (scope: Scope, out: Record<string, unknown>) => {
          if (condition(scope) !== true) return;
          const v = value(scope);
          if (isObject(v)) assignAttributes(out, v);
        };
      }
    }
  });
  return (scope) => {
    const out: Record<string, unknown> = {};
    for (const part of parts) part(scope, out);
    return out;
  };
}

export const compileStructures: Structures = {
  Everything: () => documentsOf,
  This: () => (scope) => scope.value,
  Parent: (node) => (scope) => {
    let current = scope;
    for (let i = 0; i < node.levels; i++) {
      if (!current.parent) return null;
      current = current.parent;
    }
    return current.value;
  },
  Parameter: (node, c) => {
    c.query.parameters.add(node.name);
    const name = node.name;
    return (scope) => scope.run.params[name] ?? null;
  },
  Value: (node) => {
    const value = node.value;
    return () => value;
  },
  Group: (node, c) => compileNode(node.base, c),
  Array: (node, c) => {
    const elements = node.elements.map((e) => ({ value: compileNode(e.value, c), splat: e.splat }));
    return (scope) => {
      const out: unknown[] = [];
      for (const element of elements) {
        const value = element.value(scope);
        if (!element.splat) out.push(value);
        else if (Array.isArray(value)) for (const item of value) out.push(item);
      }
      return out;
    };
  },
  Object: (node, c) => compileObject(node.attributes, c),
  AccessAttribute: (node, c) => attributeReader(node.name, node.base ? compileNode(node.base, c) : null),
  Deref: (node, c) => {
    const ref = attributeReader('_ref', compileNode(node.base, c));
    return (scope) => {
      const id = ref(scope);
      return typeof id === 'string' ? documentById(scope, id) : null;
    };
  },
  Projection: (node, c) => {
    const base = compileNode(node.base, c);
    const object = compileObject(node.expr.attributes, { ...c, hidden: false });
    return (scope) => {
      const value = base(scope);
      return isObject(value) ? object(scope.nested(value)) : null;
    };
  },
  FuncCall: (node, c) => compileCall(node, node.args.map((arg) => compileNode(arg, c)), c),
  Select: (node, c) => {
    const alternatives = node.alternatives.map((a) => ({ condition: compileNode(a.condition, c), value: compileNode(a.value, c) }));
    const fallback = node.fallback ? compileNode(node.fallback, c) : null;
    return (scope) => {
      for (const alternative of alternatives) if (alternative.condition(scope) === true) return alternative.value(scope);
      return fallback ? fallback(scope) : null;
    };
  },
};

/** A function call whose arguments are given compiled (a streamed aggregate gives its items). */
export function compileCall(node: FuncCallNode, args: readonly Executor[], c: Context): Executor {
  const fn = findFunction(node.namespace, node.name);
  if (!fn) throw new Error(`BUG: the parser let through unknown function ${node.namespace}::${node.name}`);
  if (fn.returnsNonJson) c.query.nonJson = true;
  // A function walks the arrays and strings it is given: their elements (and text, by textUnits) are charged to the budget.
  return fn.compile(args.map(chargingInputs), {
    node,
    loops: c.loops,
    compileNested: (expr: ExprNode) => compileNode(expr, nestedContext(c, false)),
    reserveSlot: () => c.query.slots++,
  });
}

function chargingInputs(exec: Executor): Executor {
  return (scope) => {
    const value = exec(scope);
    if (Array.isArray(value)) scope.run.budget.charge(value.length);
    else if (typeof value === 'string') scope.run.budget.charge(textUnits(value.length));
    return value;
  };
}
