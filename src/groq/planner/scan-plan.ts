// The shapes the query planner works with (see README.md beside this file):
// - ScanPlan: what a Scan node of the planned AST holds, decided once per query text;
// - Constraint: one conjunct of a filter with its values bound, as a source receives it;
// - ScanRequest / ScanAnswer: one evaluation of a scan, asked of a DocumentSource.
import type { ExprNode, OrderTerm } from '../ast.ts';

/** An attribute path from the document (`slug.current` is ["slug", "current"]). */
export type FieldPath = readonly string[];

/**
 * What is read of a document: attributes, and elements of arrays by a non-negative index
 * (`body[0].children[0].text` is ["body", 0, "children", 0, "text"]).
 */
export type ReadPath = readonly (string | number)[];

/** A read path as GROQ writes it. */
export function formatReadPath(path: ReadPath): string {
  return path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('');
}

export type ComparisonOperator = '==' | '<' | '<=' | '>' | '>=';

/** A filter conjunct the planner can hand to a source; values are expressions bound per evaluation. */
export type ConstraintTemplate =
  | { kind: 'compare'; path: FieldPath; op: ComparisonOperator; value: ExprNode }
  | { kind: 'in'; path: FieldPath; value: ExprNode }
  | { kind: 'range'; path: FieldPath; low: ExprNode; high: ExprNode; inclusive: boolean }
  | { kind: 'references'; args: readonly ExprNode[] }
  | { kind: 'defined'; path: FieldPath }
  /** `path match pattern`. */
  | { kind: 'match'; path: FieldPath; value: ExprNode }
  | { kind: 'not'; operand: ConstraintTemplate }
  | { kind: 'and' | 'or'; operands: readonly ConstraintTemplate[] };

/** A conjunct of the filter: the expression, and the constraint it is when the planner could say. */
export type ScanConjunct = {
  readonly expr: ExprNode;
  readonly template: ConstraintTemplate | null;
  /** What evaluating the conjunct reads of a document (null: all of it); set by the field analysis. */
  fields: ReadPath[] | null;
};

export type ScanRange =
  | { kind: 'slice'; left: ExprNode; right: ExprNode; inclusive: boolean }
  | { kind: 'element'; index: number };

export type ScanPlan = {
  /** A number, unique in the query, naming the scan in traces and EXPLAIN output. */
  readonly id: number;
  readonly conjuncts: readonly ScanConjunct[];
  readonly order: readonly OrderTerm[] | null;
  /** The order's terms as paths, when every term is an attribute path (a source can order by them). */
  readonly orderPaths: readonly { path: FieldPath; descending: boolean }[] | null;
  readonly range: ScanRange | null;
  /** The scan is the argument of count(). */
  readonly count: boolean;
  /** What is read of the documents besides the conjuncts (null: all of them); set by the field analysis. */
  fields: ReadPath[] | null;
  /** The scan is the whole query: its value is the result, as it is (set by planQuery()). */
  isResult: boolean;
};

/** A conjunct with its values bound: GROQ's own semantics, true, false or null per document. */
export type Constraint =
  | { kind: 'compare'; path: FieldPath; op: ComparisonOperator; value: unknown }
  /** `path in [values]`: equal to one of them. */
  | { kind: 'in'; path: FieldPath; values: readonly unknown[] }
  /** `path in path(pattern)`. */
  | { kind: 'match-path'; path: FieldPath; pattern: string }
  | { kind: 'range'; path: FieldPath; low: unknown; high: unknown; inclusive: boolean }
  | { kind: 'references'; ids: readonly string[] }
  | { kind: 'defined'; path: FieldPath }
  /** `path match pattern`: sources narrow by the pattern's literal text (see matchLiterals()). */
  | { kind: 'match'; path: FieldPath; pattern: unknown }
  | { kind: 'constant'; value: boolean | null }
  | { kind: 'not'; operand: Constraint }
  | { kind: 'and' | 'or'; operands: readonly Constraint[] };

export type ScanRequest = {
  /** The plan's id: sources may report what they did under it. */
  readonly scan: number;
  /** The conjuncts that have a constraint (the others are evaluated on what the source returns). */
  readonly constraints: readonly Constraint[];
  /** What evaluating each constraint reads of a document, if the source does not apply it. */
  readonly constraintFields: readonly (readonly ReadPath[] | null)[];
  /** The constraints are the whole filter: a source that applies all of them may order, window and count. */
  readonly complete: boolean;
  readonly order: readonly { path: FieldPath; descending: boolean }[] | null;
  /** [start, end) of the ordered, filtered documents; null: all of them. */
  readonly window: { start: number; end: number } | null;
  /** Only the number of matching documents is wanted. */
  readonly count: boolean;
  /**
   * Pages of a streamed aggregate whose value does not depend on the documents' order
   * (`math::sum(*[_type == "post"].views)`): a source may hand out the candidates in any order.
   */
  readonly unordered?: boolean;
  /** What the evaluator reads of the documents besides the constraints (null: everything). */
  readonly fields: readonly ReadPath[] | null;
  /**
   * The documents of a windowed answer go into the query's result untouched (the scan is the
   * whole query and its filter all constraints): a source may hand them out without parsing them,
   * for its caller to write as they are.
   */
  readonly verbatim?: boolean;
};

export type ScanAnswer = {
  /** Candidates: every matching document, in dataset order (or the window, in order, when windowed). */
  readonly documents?: readonly unknown[];
  /** When the source counted (it applied every constraint of a complete request). */
  readonly count?: number;
  /** Per constraint: applied exactly (documents failing it were left out, none passing it was). */
  readonly applied: readonly boolean[];
  /** The documents are exactly the window: filtered completely, ordered, sliced. */
  readonly windowed: boolean;
  /** The documents are not in dataset order (an answer to an unordered request only). */
  readonly reordered?: boolean;
};

/**
 * The numbers at one path of a scan's candidates, summed where they are stored
 * (DocumentSource.numbers); `mixed` when a candidate has a value there that is neither a number nor
 * null (the math:: functions are then null).
 */
export type NumberSummary =
  | { readonly kind: 'mixed' }
  | {
      readonly kind: 'numbers';
      readonly count: number;
      /**
       * Their sum in no particular order, which is the sum in dataset order when it is exact (see
       * exactSumOf()); when it is not, a source may give any number here (a sum of clamped terms).
       */
      readonly sum: number;
      /** Null when there are none. */
      readonly min: number | null;
      readonly max: number | null;
      /** The sum of their absolute values; or, past 2^53 - 1, any number past it. */
      readonly magnitude: number;
      /** How many of them are not integers. */
      readonly fractions: number;
    };
