import { PENDING, requestKey, type DocumentSource, type FieldPath, type NumberSummary, type ScanAnswer, type ScanRequest } from '../../../groq/index.ts';
import type { PlannerReads, Store } from '../../store.ts';
import type { StoredDocument } from '../../records.ts';
import type { StatementCounter } from '../../sql.ts';
import { ConditionTranslator } from './constraint-conditions.ts';
import { IndexBatcher } from './index-batcher.ts';
import { ScanExecution, type DatasetShapes, type ScanContext, type ScanReport } from './scan-execution.ts';
import type { ContentLimit } from '../../repos/documents.ts';

/** Documents per page of a streamed query: whole, or assembled from a few indexed values. */
const PAGE_SIZES = { documents: 1000, values: 10_000 };

/** The most documents a source holds at once, and what holding more does (throws: the caller's budget). */
export interface DocumentLimit {
  documents: number;
  /** The most characters of documents read as text (SQLite's, and verbatim ones) it holds at once: a few large documents are many small ones. */
  textCharacters: number;
  /** `held`: what it would hold, in words ("10001 or more documents"). */
  exceeded(held: string): never;
}

export interface SourceOptions {
  pageSizes?: { documents: number; values: number };
  limit?: DocumentLimit;
  /**
   * Documents that a scan hands out as the query's whole result, untouched, may come as their
   * stored JSON text (StoredJson) instead of parsed: for a caller that writes the result with
   * answerJson() and does nothing else with it.
   */
  verbatim?: boolean;
}

/**
 * The documents of one dataset, from the Store, for the GROQ evaluator. The evaluator asks
 * synchronously; what is not loaded yet is answered PENDING and fetched by `load()`, everything a
 * round asked at once: the planner's scans from the document index (scan-execution.ts), the ids
 * asked for by `->` with one query. `*` unplanned (releases::all()) reads the dataset a page at a time.
 */
export class StoreDocumentSource implements DocumentSource {
  /** The store's reads, counting the statements this query sends. */
  private readonly reads: PlannerReads;
  private readonly counter: StatementCounter = { statements: 0 };
  private readonly projectId: string;
  private readonly dataset: string;
  private readonly batcher: IndexBatcher;
  private all: unknown[] | undefined;
  private wantAll = false;
  private readonly byId = new Map<string, unknown>();
  private readonly wanted = new Set<string>();
  private readonly answers = new Map<string, ScanAnswer>();
  private readonly asked = new Map<string, ScanRequest>();
  private shapes: Promise<DatasetShapes> | undefined;
  private readonly pageSizes: { documents: number; values: number };
  /** What the scans asked of the index, by scan, for EXPLAIN output (the first evaluation of each, every way it was asked). */
  readonly reports = new Map<number, ScanReport>();

  private readonly limit: DocumentLimit | undefined;
  private readonly verbatim: boolean;

  constructor(store: Pick<Store, 'countedReads'>, projectId: string, dataset: string, options: SourceOptions = {}) {
    this.pageSizes = options.pageSizes ?? PAGE_SIZES;
    this.limit = options.limit;
    this.verbatim = options.verbatim ?? false;
    this.reads = store.countedReads(this.counter);
    this.projectId = projectId;
    this.dataset = dataset;
    this.batcher = new IndexBatcher(this.reads, projectId, dataset, this.contentLimit());
  }

  /** Statements sent to the database so far: the index's, its probes', dereferences', the shapes'. */
  get statements(): number {
    return this.counter.statements;
  }

  documents(): readonly unknown[] | typeof PENDING {
    if (this.all) return this.all;
    this.wantAll = true;
    return PENDING;
  }

  scan(request: ScanRequest): ScanAnswer | typeof PENDING {
    const key = requestKey(request);
    const answer = this.answers.get(key);
    if (answer) return answer;
    this.asked.set(key, request);
    return PENDING;
  }

  getDocument(id: string): unknown {
    if (this.byId.has(id)) return this.byId.get(id);
    this.wanted.add(id);
    return PENDING;
  }

  async load(): Promise<void> {
    const asked = [...this.asked];
    const wanted = [...this.wanted];
    this.asked.clear();
    this.wanted.clear();
    const work: Promise<unknown>[] = [];
    if (asked.length > 0) work.push(this.answer(asked));
    if (wanted.length > 0) {
      for (const id of wanted) this.byId.set(id, null);
      work.push(
        this.reads.documents.getMany(this.projectId, this.dataset, wanted, this.contentLimit()).then((documents) => {
          for (const document of documents) this.byId.set(document._id, document);
        }),
      );
    }
    if (this.wantAll && !this.all) work.push(this.loadAll());
    await Promise.all(work);
    if (this.limit && this.held() > this.limit.documents) this.limit.exceeded(`${this.held()} or more documents`);
  }

  /** What documents read by id at once may take (their stored sizes), under a limit: as much as the characters of documents it holds. */
  private contentLimit(): ContentLimit | undefined {
    const limit = this.limit;
    return limit && { bytes: limit.textCharacters, exceeded: (held) => limit.exceeded(held) };
  }

  /** Documents held for this query (or page): scan answers, dereferences, the whole dataset. */
  private held(): number {
    let held = this.byId.size + (this.all?.length ?? 0);
    for (const answer of this.answers.values()) held += answer.documents?.length ?? 0;
    return held;
  }

  /**
   * A streamed query's scan, a page at a time. What was cached for the previous page (its
   * subqueries and dereferences) is dropped before the next: memory holds one page.
   *
   * Under a limit on the documents held (the main thread), the first page decides, before the
   * answer begins, whether the query fits; a page after it is sized by what the pages before held
   * per row, so that it holds about half the limit: pages of 10,000 values, each with a subquery
   * of three documents, outgrew the limit with the answer half sent. Until a page has been worked
   * on (the next is read ahead), pages are the first one's size.
   */
  async *pages(request: ScanRequest): AsyncGenerator<ScanAnswer> {
    const execution = this.streamed(request);
    if (!this.reports.has(request.scan)) this.reports.set(request.scan, execution.report);
    const limit = this.limit;
    let heldPerRow: number | undefined;
    const cap = limit && (() => (heldPerRow === undefined ? this.pageSizes.documents : heldPerRow === 0 ? Infinity : Math.floor(limit.documents / 2 / heldPerRow)));
    for await (const page of execution.pages(this.pageSizes, cap)) {
      yield page;
      const rows = page.documents?.length ?? 0;
      if (rows > 0) heldPerRow = Math.max(heldPerRow ?? 0, this.held() / rows);
      this.answers.clear();
      this.byId.clear();
    }
  }

  /** An aggregate's values at one path, straight from the index when its rows stand for the scan's candidates. */
  values(request: ScanRequest, path: FieldPath): Promise<AsyncIterable<readonly unknown[]> | null> {
    return this.reported(request, (execution) => execution.values(path, this.pageSizes.values));
  }

  /** An aggregate's first occurrences of one path's values, from the index when its rows stand for the scan's candidates. */
  firstValues(request: ScanRequest, path: FieldPath): Promise<readonly unknown[] | null> {
    return this.reported(request, (execution) => execution.firstValues(path, this.pageSizes.values));
  }

  /** A summary of an aggregate's numbers at one path, summed by the database when the index's rows stand for the scan's candidates. */
  numbers(request: ScanRequest, path: FieldPath): Promise<NumberSummary | null> {
    return this.reported(request, (execution) => execution.numbers(path));
  }

  /** What `ask` makes of a new execution of the request, its report kept for EXPLAIN when it answered. */
  private async reported<T>(request: ScanRequest, ask: (execution: ScanExecution) => Promise<T | null>): Promise<T | null> {
    const execution = this.streamed(request);
    const answer = await ask(execution);
    if (answer !== null && !this.reports.has(request.scan)) this.reports.set(request.scan, execution.report);
    return answer;
  }

  /**
   * An execution of a streamed query's scan. The query is evaluated once, but may ask its scan in
   * turn for a summary, values and pages (an aggregate that a summary cannot tell): each adds
   * what it asked to the scan's report.
   */
  private streamed(request: ScanRequest): ScanExecution {
    return new ScanExecution(request, this.context(), this.reports.get(request.scan));
  }

  /** The dataset's shapes are read once per query, if a scan needs them (one row per distinct layout). */
  private context(): ScanContext {
    return {
      batcher: this.batcher,
      readsOffThread: this.reads.documentIndex.readsOffThread,
      verbatim: this.verbatim,
      ...(this.limit ? { limit: this.limit } : {}),
      shapes: () =>
        (this.shapes ??= this.reads.documentIndex.shapes(this.projectId, this.dataset).then((shapes) => {
          const nonScalarPaths = new Set<string>();
          for (const shape of shapes) for (const [path, kind] of shape.paths) if (kind !== 's') nonScalarPaths.add(path);
          return { all: shapes, translator: new ConditionTranslator(shapes), byHash: new Map(shapes.map((shape) => [shape.hash, shape])), nonScalarPaths };
        })),
    };
  }

  private async answer(asked: [string, ScanRequest][]): Promise<void> {
    const context = this.context();
    await Promise.all(
      asked.map(async ([key, request]) => {
        const execution = new ScanExecution(request, context);
        this.answers.set(key, await execution.run(this.pageSizes));
        if (!this.reports.has(request.scan)) this.reports.set(request.scan, execution.report);
      }),
    );
  }

  private async loadAll(): Promise<void> {
    const all: unknown[] = [];
    let characters = 0;
    for await (const text of this.reads.documents.scanText(this.projectId, this.dataset)) {
      characters += text.length;
      if (this.limit && characters > this.limit.textCharacters) this.limit.exceeded(`${characters} or more characters of documents`);
      const document = JSON.parse(text) as StoredDocument;
      all.push(document);
      if (this.limit && all.length > this.limit.documents) this.limit.exceeded(`${all.length} or more documents`);
      if (!this.byId.has(document._id)) this.byId.set(document._id, document);
    }
    this.all = all;
  }
}
