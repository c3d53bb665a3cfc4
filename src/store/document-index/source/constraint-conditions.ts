// GROQ constraints (three-valued: true, false or null per document) as conditions on the document
// index. Each constraint gives two conditions, the documents for which it is true and those for
// which it is false, so that `!`, `&&` and `||` combine exactly as GROQ combines them. A constraint
// the index cannot answer exactly gives null, and the evaluator evaluates it on the candidates.
import { matchLiterals, type Constraint, type FieldPath } from '../../../groq/index.ts';
import { ALL, and, NONE, not, or, type DocumentCondition } from '../document-query.ts';
import { isIndexedPath, type ShapeInfo } from '../entries.ts';
import { encodeScalar, isOrderSafeString, isWholeString, RANK_BOOLEAN, RANK_END, RANK_NUMBER, RANK_STRING } from '../values.ts';

export type Conditions = { whenTrue: DocumentCondition; whenFalse: DocumentCondition };

/** More values than this in one `in` are left to the evaluator. */
const MAX_VALUES = 1000;

const twoValued = (whenTrue: DocumentCondition): Conditions => ({ whenTrue, whenFalse: not(whenTrue) });

/** The rank a scalar's encoding starts with, and the one after it, by the scalar's typeof. */
const RANKS: Readonly<Record<string, [string, string]>> = { number: [RANK_NUMBER, RANK_STRING], string: [RANK_STRING, RANK_BOOLEAN], boolean: [RANK_BOOLEAN, RANK_END] };

/** Whether translating a constraint reads the dataset's shapes (defined(), equality with null). */
export function needsShapes(constraint: Constraint): boolean {
  switch (constraint.kind) {
    case 'defined':
    case 'match':
      return true;
    case 'compare':
      return constraint.op === '==' && constraint.value === null;
    case 'in':
      return constraint.values.includes(null);
    case 'not':
      return needsShapes(constraint.operand);
    case 'and':
    case 'or':
      return constraint.operands.some(needsShapes);
    default:
      return false;
  }
}

export class ConditionTranslator {
  private readonly shapes: readonly ShapeInfo[];

  constructor(shapes: readonly ShapeInfo[]) {
    this.shapes = shapes;
  }

  /** Documents of the shapes that pass `test` (none: NONE). */
  private ofShapes(test: (shape: ShapeInfo) => boolean): DocumentCondition {
    const hashes = this.shapes.filter(test).map((shape) => shape.hash);
    return hashes.length === 0 ? NONE : { kind: 'shape', hashes };
  }

  /** Documents that have the path (defined()). */
  private definedAt(path: string): DocumentCondition {
    return this.ofShapes((shape) => shape.paths.has(path));
  }

  /** Documents with no scalar at the path (ordered last, or first when descending). */
  withoutScalar(path: string, types: readonly string[] | null): DocumentCondition {
    return this.ofShapes((shape) => shape.paths.get(path) !== 's' && (types === null || types.includes(shape.type)));
  }

  translate(constraint: Constraint): Conditions | null {
    switch (constraint.kind) {
      case 'constant':
        return { whenTrue: constraint.value === true ? ALL : NONE, whenFalse: constraint.value === false ? ALL : NONE };
      case 'not': {
        const operand = this.translate(constraint.operand);
        return operand && { whenTrue: operand.whenFalse, whenFalse: operand.whenTrue };
      }
      case 'and':
      case 'or': {
        const operands = constraint.operands.map((c) => this.translate(c));
        if (operands.some((c) => c === null)) return null;
        const parts = operands as Conditions[];
        const trues = parts.map((c) => c.whenTrue);
        const falses = parts.map((c) => c.whenFalse);
        return constraint.kind === 'and' ? { whenTrue: and(trues), whenFalse: or(falses) } : { whenTrue: or(trues), whenFalse: and(falses) };
      }
      case 'references': {
        const ids = constraint.ids.filter(isStorableText);
        return twoValued(ids.length === 0 ? NONE : { kind: 'references', ids });
      }
      case 'defined':
        return this.defined(constraint.path);
      case 'compare':
        return constraint.op === '==' ? this.equals(constraint.path, constraint.value) : this.compare(constraint.path, constraint.op, constraint.value);
      case 'in': {
        if (constraint.values.length > MAX_VALUES) return null;
        const parts = constraint.values.map((value) => this.equals(constraint.path, value));
        if (parts.some((c) => c === null)) return null;
        return twoValued(or(parts.map((c) => c!.whenTrue)));
      }
      case 'match-path':
        return this.matchId(constraint.path, constraint.pattern);
      case 'match':
        return null;
      case 'range': {
        const above = this.compare(constraint.path, '>=', constraint.low);
        const below = this.compare(constraint.path, constraint.inclusive ? '<=' : '<', constraint.high);
        if (!above || !below) return null;
        // Null when either comparison is null: both must be true, or one false and the other not null.
        return {
          whenTrue: and([above.whenTrue, below.whenTrue]),
          whenFalse: or([and([above.whenFalse, or([below.whenTrue, below.whenFalse])]), and([below.whenFalse, or([above.whenTrue, above.whenFalse])])]),
        };
      }
    }
  }

  /**
   * For a constraint translate() cannot answer exactly: a condition that every document for which
   * it is true meets, or null. The evaluator still checks the constraint on what it lets through.
   */
  narrowing(constraint: Constraint): DocumentCondition | null {
    switch (constraint.kind) {
      case 'match':
        return this.matching(constraint.path, constraint.pattern);
      case 'and': {
        const parts = constraint.operands.map((operand) => this.superset(operand)).filter((part) => part !== null);
        return parts.length > 0 ? and(parts) : null;
      }
      case 'or': {
        const parts = constraint.operands.map((operand) => this.superset(operand));
        return parts.every((part) => part !== null) ? or(parts) : null;
      }
      default:
        return null;
    }
  }

  /** The documents for which a constraint is true, or a superset of them; null: any document. */
  private superset(constraint: Constraint): DocumentCondition | null {
    return this.translate(constraint)?.whenTrue ?? this.narrowing(constraint);
  }

  /**
   * `path match pattern`, true only for a string holding the pattern's literal text (its ASCII
   * runs, which SQL compares as the operator does) or for an array of strings (shapes tell which
   * documents have one there); false for every document when no text matches the pattern.
   */
  private matching(path: FieldPath, pattern: unknown): DocumentCondition | null {
    const literals = matchLiterals(pattern);
    if (literals === null) return NONE;
    if (isColumn(path) || !isIndexedPath(path)) return null;
    const texts = new Set<string>();
    // A text's dots at word edges are removed before matching, and SQL removes all of them; runs of
    // ASCII without U+0000, which PostgreSQL cannot carry (and no document holds).
    for (const literal of literals) for (const run of literal.replace(/\./g, '').match(/[^\0\u0080-\uffff]+/g) ?? []) texts.add(run.toLowerCase());
    if (texts.size === 0) return null;
    const key = path.join('.');
    return or([{ kind: 'contains', path: key, texts: [...texts] }, this.ofShapes((shape) => shape.paths.get(key) === 'a')]);
  }

  private defined(path: FieldPath): Conditions | null {
    if (isColumn(path)) return { whenTrue: ALL, whenFalse: NONE };
    if (!isIndexedPath(path)) return null;
    return twoValued(this.definedAt(path.join('.')));
  }

  /** `path == value`: never null. */
  private equals(path: FieldPath, value: unknown): Conditions | null {
    if (value === null) {
      const defined = this.defined(path);
      return defined && { whenTrue: defined.whenFalse, whenFalse: defined.whenTrue };
    }
    // Arrays, objects (and datetimes, which documents never hold) equal nothing.
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return twoValued(NONE);
    if (isColumn(path)) {
      if (typeof value !== 'string' || !isStorableText(value)) return twoValued(NONE);
      return twoValued(path[0] === '_id' ? { kind: 'id', ids: [value] } : { kind: 'type', types: [value] });
    }
    if (!isIndexedPath(path) || (typeof value === 'string' && !isWholeString(value))) return null;
    const encoded = encodeScalar(value);
    return twoValued({ kind: 'value', path: path.join('.'), low: { value: encoded, inclusive: true }, high: { value: encoded, inclusive: true } });
  }

  /** `path < value` and the like: null unless both are numbers, strings or booleans. */
  private compare(path: FieldPath, op: '<' | '<=' | '>' | '>=', value: unknown): Conditions | null {
    const rank = RANKS[typeof value];
    if (!rank) return { whenTrue: NONE, whenFalse: NONE };
    if (isColumn(path)) {
      if (typeof value !== 'string') return { whenTrue: NONE, whenFalse: NONE };
      // Ids are ASCII, so their order is GROQ's against any string; types are any text.
      if (path[0] === '_type' || !isStorableText(value)) return null;
      const range = (o: typeof op): DocumentCondition =>
        o === '<' || o === '<=' ? { kind: 'idRange', high: { value, inclusive: o === '<=' } } : { kind: 'idRange', low: { value, inclusive: o === '>=' } };
      return { whenTrue: range(op), whenFalse: range(COMPLEMENT[op]) };
    }
    if (!isIndexedPath(path) || (typeof value === 'string' && !isOrderSafeString(value))) return null;
    const key = path.join('.');
    const encoded = encodeScalar(value as string | number | boolean);
    const [start, end] = rank;
    const range = (o: typeof op): DocumentCondition =>
      o === '<' || o === '<='
        ? { kind: 'value', path: key, low: { value: start, inclusive: true }, high: { value: encoded, inclusive: o === '<=' } }
        : { kind: 'value', path: key, low: { value: encoded, inclusive: o === '>=' }, high: { value: end, inclusive: false } };
    return { whenTrue: range(op), whenFalse: range(COMPLEMENT[op]) };
  }

  /** `_id in path(pattern)`: a literal id, or a literal prefix followed by `.**`. */
  private matchId(path: FieldPath, pattern: string): Conditions | null {
    if (path.length !== 1 || path[0] !== '_id') return null;
    if (!isStorableText(pattern)) return twoValued(NONE);
    const segments = pattern.split('.');
    if (pattern === '**') return twoValued(ALL);
    if (segments.every((s) => s !== '*' && s !== '**')) return twoValued({ kind: 'id', ids: [pattern] });
    const last = segments.pop();
    if (last !== '**' || segments.some((s) => s === '*' || s === '**')) return null;
    const prefix = `${segments.join('.')}.`;
    // Ids are ASCII: the ids starting with `prefix` sort between it and the prefix with '.' -> '/'.
    return twoValued({ kind: 'idRange', low: { value: prefix, inclusive: true }, high: { value: `${prefix.slice(0, -1)}/`, inclusive: false } });
  }
}

const COMPLEMENT = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' } as const;

/** No document holds U+0000 (PostgreSQL's text cannot carry it): a value with one equals no id, type or reference. */
function isStorableText(text: string): boolean {
  return !text.includes('\u0000');
}

function isColumn(path: FieldPath): boolean {
  return path.length === 1 && (path[0] === '_id' || path[0] === '_type');
}
