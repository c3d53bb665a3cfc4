// EXPLAIN output of a query (`?explain=true`): for each scan of the planned query, what the
// document index answered (constraints, order and window, count, the fields it returned) and what
// the evaluator did on the candidates, with the counts of one evaluation and the SQL it sent.
import { describePlan, type ExprNode, type QueryTrace } from '../../groq/index.ts';
import type { StoreDocumentSource } from '../../store/index.ts';

export interface ScanExplanation {
  scan: number;
  /** The part of the query the scan answers. */
  expression: string;
  index: {
    /** Filter conjuncts the index applied (in every evaluation of the scan). */
    constraints: string[];
    order: string | null;
    window: string | null;
    count: boolean;
    /** The attributes of the documents it returned (`*`: whole documents). */
    fields: string[] | '*';
  };
  evaluator: {
    /** Filter conjuncts evaluated on the candidates. */
    filter: string[];
    order: string | null;
    range: string | null;
  };
  /** Times the scan ran (once per document for a subquery), documents returned, documents kept. */
  evaluations: number;
  candidates: number;
  matched: number;
  /** The statements of its first evaluation. */
  sql: string[];
}

export interface QueryPlan {
  scans: ScanExplanation[];
  /** Evaluation rounds: each loads, in one batch, what the previous one found it needs. */
  rounds: number;
  /** Pages of a query streamed a page of documents at a time (0: not streamed). */
  pages: number;
  /**
   * SQL statements the query sent: the index's (subqueries batched into one count once), its
   * probes, dereferences, the dataset's shapes.
   */
  statements: number;
}

export function explainQuery(planned: ExprNode, text: string, trace: QueryTrace, source: StoreDocumentSource): QueryPlan {
  const scans = describePlan(planned, text).scans.map((scan): ScanExplanation => {
    const runs = trace.scans.get(scan.scan);
    const evaluations = runs?.evaluations ?? 0;
    const everyTime = (n: number) => evaluations > 0 && n === evaluations;
    const pushed = scan.constraints.filter((_, i) => everyTime(runs?.applied[i] ?? 0));
    const windowed = everyTime(runs?.windowed ?? 0);
    const counted = everyTime(runs?.counted ?? 0);
    const report = source.reports.get(scan.scan);
    return {
      scan: scan.scan,
      expression: scan.expression,
      index: {
        constraints: pushed,
        order: windowed ? scan.order : null,
        window: windowed ? scan.range : null,
        count: counted,
        fields: scan.fields,
      },
      evaluator: {
        filter: [...scan.constraints.filter((c) => !pushed.includes(c)), ...scan.evaluated],
        order: windowed ? null : scan.order,
        range: windowed ? null : scan.range,
      },
      evaluations,
      candidates: runs?.candidates ?? 0,
      matched: runs?.matched ?? 0,
      sql: report?.statements ?? [],
    };
  });
  return { scans, rounds: trace.rounds, pages: trace.pages, statements: source.statements };
}
