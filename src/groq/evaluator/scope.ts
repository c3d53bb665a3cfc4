// Scopes and the state of one evaluation. Executors are closures over a compiled query; they
// receive the scope they run in, which leads to everything else they may need.
import type { DocumentSource } from '../source.ts';
import type { QueryTrace } from '../planner/trace.ts';
import type { ScanAnswer } from '../planner/scan-plan.ts';
import type { DateTime } from './values.ts';
import type { EvaluationBudget } from './budget.ts';

/** What stays the same during one evaluation of a query. */
export type Run = {
  readonly source: DocumentSource;
  readonly params: Readonly<Record<string, unknown>>;
  /** now() and dateTime::now(): one instant for the whole query. */
  readonly now: DateTime;
  /** identity(): who runs the query. */
  readonly identity: string;
  /** sanity::projectId() and sanity::dataset(). */
  readonly project: { readonly projectId: string; readonly dataset: string } | null;
  /**
   * Slots for what is computed at most once per run: subqueries that depend on no scope, and
   * caches of functions (see CallSite.reserveSlot). Unset slots are undefined.
   */
  readonly cache: unknown[];
  /** Set when the source could not answer synchronously; the run is then repeated after loading. */
  pending: boolean;
  /** Charged by every loop; stops the evaluation when spent. */
  readonly budget: EvaluationBudget;
  /** Where planned scans record what they did, when EXPLAIN output is wanted. */
  readonly trace?: QueryTrace | undefined;
  /** A streamed evaluation (planner/stream.ts): the page of documents the scan `scan` answers with. */
  readonly page?: { readonly scan: number; readonly answer: ScanAnswer } | undefined;
};

export class Scope {
  /**
   * Mutable on purpose: a loop over an array evaluates its body for each element in one scope
   * object, changing only the value. Nothing keeps a scope after the body returns.
   */
  value: unknown;
  readonly parent: Scope | null;
  /** Element scopes of traversals (`a[].b`) are hidden: scopes created inside them skip them as parent. */
  readonly hidden: boolean;
  readonly run: Run;

  constructor(value: unknown, parent: Scope | null, hidden: boolean, run: Run) {
    this.value = value;
    this.parent = parent;
    this.hidden = hidden;
    this.run = run;
  }

  /** The scope of a filter, projection or ordering term evaluated on `value`. */
  nested(value: unknown): Scope {
    return new Scope(value, this.hidden ? this.parent : this, false, this.run);
  }

  /** The scope of one element of a traversal (`a[].b`); `^` inside it looks past it. */
  element(value: unknown): Scope {
    return new Scope(value, this.hidden ? this.parent : this, true, this.run);
  }
}

/** A compiled expression. */
export type Executor = (scope: Scope) => unknown;
