// What the scans of one evaluation did, for EXPLAIN output: the evaluator records each scan's
// requests and answers here. A round an asynchronous source made the evaluator repeat is dropped
// (its answers were empty); a streamed query adds up its pages.

export type ScanTrace = {
  /** Times the scan was evaluated (a subquery per document runs once per document). */
  evaluations: number;
  /** Evaluations whose source could not answer scans: the scan's expression was evaluated as it is. */
  unplanned: number;
  /** Documents the source returned, and how many of them passed the evaluator's filter. */
  candidates: number;
  matched: number;
  /** Per constraint: evaluations in which the source applied it exactly. */
  applied: number[];
  /** Evaluations the source ordered and windowed, or counted, itself. */
  windowed: number;
  counted: number;
};

export class QueryTrace {
  /** Evaluation rounds, including those repeated after loading. */
  rounds = 0;
  /** Pages of a streamed query (0: not streamed). */
  pages = 0;
  readonly scans = new Map<number, ScanTrace>();
  private round = new Map<number, ScanTrace>();

  beginRound(): void {
    this.rounds++;
    this.round = new Map();
  }

  /** The last round's answers were the real ones: they count. */
  keepRound(): void {
    for (const [id, trace] of this.round) {
      const total = this.scans.get(id);
      if (!total) {
        this.scans.set(id, trace);
        continue;
      }
      for (const key of ['evaluations', 'unplanned', 'candidates', 'matched', 'windowed', 'counted'] as const) total[key] += trace[key];
      trace.applied.forEach((n, i) => (total.applied[i] = (total.applied[i] ?? 0) + n));
    }
    this.round = new Map();
  }

  scan(id: number, constraints: number): ScanTrace {
    let trace = this.round.get(id);
    if (!trace) {
      trace = { evaluations: 0, unplanned: 0, candidates: 0, matched: 0, applied: new Array<number>(constraints).fill(0), windowed: 0, counted: 0 };
      this.round.set(id, trace);
    }
    return trace;
  }
}
