// Constraints at run time: binding a template's values in the scope of one evaluation, and GROQ's
// meaning of a bound constraint for one document (true, false or null, exactly as the conjunct it
// came from would evaluate), which the in-memory source applies and the other sources must match.
import type { ExprNode } from '../ast.ts';
import { compare, equals } from '../evaluator/compare.ts';
import { OPERATORS } from '../evaluator/operators.ts';
import type { Executor, Scope } from '../evaluator/scope.ts';
import { Path } from '../evaluator/values.ts';
import { hasReference } from '../functions/references.ts';
import { valueAtPath } from './read-paths.ts';
import type { Constraint, ConstraintTemplate, FieldPath } from './scan-plan.ts';

export type Binder = (scope: Scope) => Constraint;

/** Compiles a template into a function that binds its values in the filter's element scope. */
export function compileTemplate(template: ConstraintTemplate, compile: (expr: ExprNode) => Executor): Binder {
  switch (template.kind) {
    case 'compare': {
      const value = compile(template.value);
      const { path, op } = template;
      return (scope) => ({ kind: 'compare', path, op, value: value(scope) });
    }
    case 'in': {
      const value = compile(template.value);
      const path = template.path;
      return (scope): Constraint => {
        const v = value(scope);
        if (Array.isArray(v)) return { kind: 'in', path, values: v };
        if (v instanceof Path) return { kind: 'match-path', path, pattern: v.pattern };
        return { kind: 'constant', value: null };
      };
    }
    case 'range': {
      const low = compile(template.low);
      const high = compile(template.high);
      const { path, inclusive } = template;
      return (scope) => ({ kind: 'range', path, low: low(scope), high: high(scope), inclusive });
    }
    case 'references': {
      const args = template.args.map(compile);
      return (scope) => {
        // The ids as references() takes them: strings, and the strings of arrays.
        const ids = new Set<string>();
        for (const arg of args) {
          const v = arg(scope);
          if (typeof v === 'string') ids.add(v);
          else if (Array.isArray(v)) for (const id of v) if (typeof id === 'string') ids.add(id);
        }
        return { kind: 'references', ids: [...ids] };
      };
    }
    case 'defined': {
      const path = template.path;
      return () => ({ kind: 'defined', path });
    }
    case 'match': {
      const value = compile(template.value);
      const path = template.path;
      return (scope) => ({ kind: 'match', path, pattern: value(scope) });
    }
    case 'not': {
      const operand = compileTemplate(template.operand, compile);
      return (scope) => ({ kind: 'not', operand: operand(scope) });
    }
    case 'and':
    case 'or': {
      const operands = template.operands.map((t) => compileTemplate(t, compile));
      const kind = template.kind;
      return (scope) => ({ kind, operands: operands.map((operand) => operand(scope)) });
    }
  }
}

/** The attribute at `path` of a document, as `a.b.c` reads it. */
export function readPath(document: unknown, path: FieldPath): unknown {
  return valueAtPath(document, path) ?? null;
}

/** GROQ's value of the conjunct a constraint stands for, on one document. */
export function evaluateConstraint(constraint: Constraint, document: unknown): boolean | null {
  switch (constraint.kind) {
    case 'compare':
      return OPERATORS[constraint.op](readPath(document, constraint.path), constraint.value) as boolean | null;
    case 'in': {
      const value = readPath(document, constraint.path);
      return constraint.values.some((candidate) => equals(value, candidate));
    }
    case 'match-path': {
      const value = readPath(document, constraint.path);
      return typeof value === 'string' ? new Path(constraint.pattern).matches(value) : null;
    }
    case 'range': {
      const value = readPath(document, constraint.path);
      const fromLow = compare(value, constraint.low);
      if (fromLow === null) return null;
      const fromHigh = compare(value, constraint.high);
      if (fromHigh === null) return null;
      return fromLow >= 0 && (constraint.inclusive ? fromHigh <= 0 : fromHigh < 0);
    }
    case 'references':
      return constraint.ids.length > 0 && hasReference(document, new Set(constraint.ids));
    case 'defined':
      return readPath(document, constraint.path) !== null;
    case 'match':
      return OPERATORS.match(readPath(document, constraint.path), constraint.pattern) as boolean | null;
    case 'constant':
      return constraint.value;
    case 'not': {
      const value = evaluateConstraint(constraint.operand, document);
      return value === null ? null : !value;
    }
    case 'and': {
      let all = true;
      for (const operand of constraint.operands) {
        const value = evaluateConstraint(operand, document);
        if (value === false) return false;
        if (value !== true) all = false;
      }
      return all ? true : null;
    }
    case 'or': {
      let none = true;
      for (const operand of constraint.operands) {
        const value = evaluateConstraint(operand, document);
        if (value === true) return true;
        if (value !== false) none = false;
      }
      return none ? false : null;
    }
  }
}
