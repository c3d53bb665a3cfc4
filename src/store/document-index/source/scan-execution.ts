// One scan request answered from the document index: the constraints the index answers exactly
// become the query's condition (the others are left to the evaluator), and when that is the whole
// filter the index also counts, or orders and windows. Documents come whole; or, when the query
// reads a few indexed paths of them, assembled from the value rows (no document is parsed); or cut
// down to the values at the paths the query reads.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { outermostPaths, placeAtPath, readPath, type FieldPath, type NumberSummary, type ReadPath, type ScanAnswer, type ScanRequest } from '../../../groq/index.ts';
import {
  and,
  conjuncts,
  IDS_ALONE,
  isPlainStep,
  type DocumentCondition,
  type DocumentOrder,
  type DocumentPath,
  type DocumentQuery,
  type DocumentQueryResult,
  type DocumentRow,
  type DocumentSelection,
} from '../document-query.ts';
import { isIndexedPath, type ShapeInfo } from '../entries.ts';
import { decodeScalar, isOrderSafeString } from '../values.ts';
import { jsonColumn } from '../../sql.ts';
import { PAGE_TEXT_BYTES } from '../../stored-size-pages.ts';
import { BESIDES_IDS, holds } from '../sql/conditions.ts';
import { ConditionTranslator, needsShapes } from './constraint-conditions.ts';
import type { IndexBatcher } from './index-batcher.ts';
import { readDocument, verbatimDocument } from './read-text.ts';
import type { DocumentLimit } from './store-document-source.ts';

/** Beyond this many paths, whole documents are cheaper than a subquery per path and document. */
const MAX_VALUE_PATHS = 8;
/** Beyond this many paths, the document is read whole (PostgreSQL's jsonb_build_array takes 100 arguments). */
const MAX_PATHS = 32;

/** What is known of a dataset's shapes (read once per query, when first needed). */
export interface DatasetShapes {
  all: readonly ShapeInfo[];
  translator: ConditionTranslator;
  byHash: ReadonlyMap<string, ShapeInfo>;
  /** Paths that hold an object or an array in some document of the dataset. */
  nonScalarPaths: ReadonlySet<string>;
}

export interface ScanContext {
  batcher: IndexBatcher;
  shapes(): Promise<DatasetShapes>;
  /**
   * Whether the database reads beside this thread: a page read ahead then overlaps the evaluator's
   * work, and one long statement (grouping a path's values) holds no thread.
   */
  readsOffThread: boolean;
  /** The most documents an answer may hold; called with the count when a scan would return more. */
  limit?: DocumentLimit;
  /** Whether documents may come as their stored text (SourceOptions.verbatim). */
  verbatim: boolean;
}

/** Translates constraints that need no shapes. */
const SHAPELESS = new ConditionTranslator([]);

/** What a scan asked of the index, for EXPLAIN output: each query, and the statement that answered it. */
export interface ScanReport {
  queries: DocumentQuery[];
  statements: string[];
}

const isColumn = (path: ReadPath) => path.length === 1 && (path[0] === '_id' || path[0] === '_type');

const isAttributePath = (path: ReadPath): path is FieldPath => path.every((step) => typeof step === 'string');

/**
 * The paths to select for the paths read, each cut before its first step SQL cannot name (reading
 * more of a document than asked is always right), without those inside another; null when a path
 * would be cut to nothing (the document is then read whole).
 */
function selectablePaths(paths: readonly ReadPath[]): DocumentPath[] | null {
  const cut: DocumentPath[] = [];
  for (const path of paths) {
    const plain = path.findIndex((step) => !isPlainStep(step));
    if (plain === 0) return null;
    cut.push(plain < 0 ? path : path.slice(0, plain));
  }
  return outermostPaths(cut);
}

/**
 * The index's selection for the paths read: value rows when they are few, indexed, and scalars in
 * every document of the dataset (an object or array at a path has no value row to stand for it;
 * which paths have one, only the shapes tell: null when they were not read); else the values at
 * those paths, when they are few and named plainly; else whole documents.
 */
function selection(fields: readonly ReadPath[] | null, nonScalarPaths: ReadonlySet<string> | null): DocumentSelection {
  if (fields === null) return { kind: 'content' };
  const paths = fields.filter((path) => !isColumn(path));
  if (nonScalarPaths && paths.length <= MAX_VALUE_PATHS && paths.every((path) => isAttributePath(path) && isIndexedPath(path) && !nonScalarPaths.has(path.join('.')))) {
    return { kind: 'values', paths: paths.map((path) => path.join('.')), type: fields.some((path) => isColumn(path) && path[0] === '_type') };
  }
  const selected = selectablePaths(paths);
  return selected && selected.length <= MAX_PATHS ? { kind: 'paths', paths: selected } : { kind: 'content' };
}

/** The types a condition is restricted to by a top-level `_type` condition, or null. */
function typesOf(where: DocumentCondition): readonly string[] | null {
  const typed = conjuncts(where).find((part) => part.kind === 'type');
  return typed?.kind === 'type' ? typed.types : null;
}

export class ScanExecution {
  private readonly request: ScanRequest;
  private readonly context: ScanContext;
  readonly report: ScanReport;
  /** The dataset's shapes, once this scan has read them: the index then chooses its paths by them too. */
  private shapes: DatasetShapes | null = null;

  /** `report`: one to add to (another way the same evaluation asked its scan). */
  constructor(request: ScanRequest, context: ScanContext, report: ScanReport = { queries: [], statements: [] }) {
    this.request = request;
    this.context = context;
    this.report = report;
  }

  private async ask(query: DocumentQuery): Promise<DocumentQueryResult> {
    const reported = this.report.queries.push(query) - 1;
    const result = await this.context.batcher.query(query, this.shapes?.all ?? null);
    this.report.statements[reported] = result.sql;
    return result;
  }

  private async rows(query: DocumentQuery): Promise<DocumentRow[]> {
    const result = await this.ask(query);
    return 'rows' in result ? result.rows : [];
  }

  /** The condition of the constraints the index answers exactly, and what to select. */
  private async prepare(): Promise<{ where: DocumentCondition; applied: boolean[]; exact: boolean; select: DocumentSelection }> {
    const { request, context } = this;
    const translator = request.constraints.some(needsShapes) ? (await context.shapes()).translator : SHAPELESS;
    const translated = request.constraints.map((constraint) => translator.translate(constraint));
    const applied = translated.map((t) => t !== null);
    // A constraint the index cannot apply exactly may still narrow the candidates it is checked on.
    const narrowed = request.constraints.flatMap((constraint, i) => (applied[i] ? [] : (translator.narrowing(constraint) ?? [])));
    const where = and([...translated.flatMap((t) => (t ? [t.whenTrue] : [])), ...narrowed]);
    // The evaluator reads what it asked for, and evaluates what was not applied.
    let fields: ReadPath[] | null = request.fields ? [...request.fields] : null;
    request.constraintFields.forEach((own, i) => {
      if (applied[i] || fields === null) return;
      if (own === null) fields = null;
      else fields.push(...own);
    });
    const exact = request.complete && applied.every(Boolean);
    // One document (`[0]`: a lookup) is read whole or in part rather than after a statement that
    // reads the dataset's shapes (a round trip on PostgreSQL).
    const single = exact && request.window !== null && request.window.end - request.window.start <= 1 && !ordersByValue(request);
    // A count selects nothing: the shapes would only tell the types a value conjunct implies.
    const counted = exact && request.count && !conjuncts(where).some((part) => part.kind === 'value');
    if (fields !== null && !single && !counted) this.shapes = await context.shapes();
    return { where, applied, exact, select: selection(fields, this.shapes?.nonScalarPaths ?? null) };
  }

  private async count(where: DocumentCondition, applied: boolean[]): Promise<ScanAnswer> {
    const result = await this.ask({ where, order: { kind: 'id', descending: false }, offset: 0, limit: null, select: { kind: 'count' } });
    return { count: 'count' in result ? result.count : 0, applied, windowed: false };
  }

  /** `sizes`: the rows of a page (of whole documents, of values) where the candidates are read a page at a time. */
  async run(sizes: { documents: number; values: number }): Promise<ScanAnswer> {
    const request = this.request;
    const { where, applied, exact, select } = await this.prepare();
    if (exact && request.count) return this.count(where, applied);
    if (exact && request.window) {
      const window = await this.window(where, select, request.window, sizes.documents);
      if (window) return { documents: window, applied, windowed: true };
    }
    const limit = this.context.limit;
    const all: DocumentQuery = { where, order: { kind: 'id', descending: false }, offset: 0, limit: limit ? limit.documents + 1 : null, select };
    // Where the database reads on this thread, a page per statement: one statement of every
    // candidate (or of the budget's documents) held the server's thread as long as it read them.
    // Whole documents are read in pages anywhere: in one statement, ten thousand large ones were
    // more than the heap could hold.
    const paged = select.kind === 'content' || !this.context.readsOffThread;
    const rows = paged ? await this.inPages(all, select.kind === 'values' ? sizes.values : sizes.documents) : await this.rows(all);
    if (limit && rows.length > limit.documents) limit.exceeded(`${rows.length} or more documents`);
    return { documents: await this.documents(rows, select), applied, windowed: false };
  }

  /** The rows of a query (as many as its limit, if it has one) read a page at a time. */
  private async inPages(query: DocumentQuery, pageSize: number): Promise<DocumentRow[]> {
    const rows: DocumentRow[] = [];
    const wanted = query.limit ?? Infinity;
    const limit = this.context.limit;
    let characters = 0;
    for await (const page of this.rowPages({ ...query, limit: Math.min(pageSize, wanted) }, pageSize, undefined, wanted)) {
      for (const row of page) rows.push(row);
      characters += textCharacters(page);
      if (limit && characters > limit.textCharacters) limit.exceeded(`${characters} or more characters of documents`);
      if (rows.length >= wanted) break;
    }
    return rows.length > wanted ? rows.slice(0, wanted) : rows;
  }

  /**
   * The candidates a page at a time, in id order; or, for an aggregate that takes them in any
   * order, in the order of the one path whose value rows stand for them (valueWalk()). A query's
   * first page is the size of a page of whole documents, so that a small result is one statement
   * of a small page; pages assembled from a few values are larger.
   */
  async *pages(sizes: { documents: number; values: number }, cap?: () => number): AsyncGenerator<ScanAnswer> {
    const { where, applied, exact, select } = await this.prepare();
    if (exact && this.request.count) {
      yield await this.count(where, applied);
      return;
    }
    const walked = exact && this.request.unordered ? await this.valueWalk(where, select) : null;
    const first: DocumentQuery =
      walked === null ? { where, order: { kind: 'id', descending: false }, offset: 0, limit: sizes.documents, select } : walkQuery(walked, select, sizes.values);
    for await (const rows of this.rowPages(first, select.kind === 'values' ? sizes.values : sizes.documents, cap)) {
      yield { documents: await this.documents(rows, select), applied, windowed: false, ...(walked === null ? {} : { reordered: true }) };
    }
  }

  /**
   * For an aggregate of the values at `path` that takes them in any order: those values, walked
   * in value order from the index a page at a time (no document is assembled), when the path's
   * value rows stand for the candidates exactly (valueWalk()); else null. A value the index holds
   * only in part (a long string) is read from its document.
   */
  async values(path: FieldPath, pageSize: number): Promise<AsyncGenerator<unknown[]> | null> {
    const walked = this.request.unordered ? await this.walkOf(path) : null;
    return walked && this.walkValues(walkQuery(walked.walk, walked.select, pageSize), path, pageSize);
  }

  /**
   * For an aggregate that depends only on the first occurrence of each value at `path`
   * (`array::unique(*[_type == "post"].author._ref)`): the distinct values, each where the first
   * candidate holding it puts it, with null where the first candidate without one would put it;
   * when the path's value rows stand for the candidates (valueWalk()). Where the database reads
   * beside this thread it groups them, one row per value with its least id (the `firsts`
   * selection); else they are walked a page at a time in (value, id) order, so that the first row
   * of each value holds its first document and the thread is never held for long. Null when
   * they do not stand for the candidates, when a value is held only in part (a long string: equal
   * starts are not equal values), or when an id's order in SQL might not be JavaScript's.
   */
  async firstValues(path: FieldPath, pageSize: number): Promise<unknown[] | null> {
    const walked = await this.walkOf(path);
    if (walked === null) return null;
    const { walk, where, select } = walked;
    const firsts: { value: unknown; id: string }[] = [];
    let previous: string | null = null;
    const pages = this.context.readsOffThread ? [await this.rows(walkQuery(walk, { kind: 'firsts' }, null))] : this.rowPages(walkQuery(walk, select, pageSize), pageSize);
    for await (const rows of pages) {
      for (const row of rows) {
        const encoded = row.values![0]!;
        if (encoded === previous) continue;
        previous = encoded;
        const value = decodeScalar(encoded);
        if (value === undefined || !isOrderSafeString(row.id)) return null;
        firsts.push({ value, id: row.id });
      }
    }
    // Candidates with nothing at the path (their shapes say which) read null there: the first of them places it.
    const lacking = and([where, (await this.context.shapes()).translator.withoutScalar(walk.path, walk.types)]);
    if (lacking.kind !== 'none') {
      const [first] = await this.rows({ where: lacking, order: { kind: 'id', descending: false }, offset: 0, limit: 1, select: IDS_ALONE });
      if (first && !isOrderSafeString(first.id)) return null;
      if (first) firsts.push({ value: null, id: first.id });
    }
    // Below the surrogates JavaScript orders ids as SQL does.
    return firsts.sort((a, b) => (a.id < b.id ? -1 : 1)).map((first) => first.value);
  }

  /**
   * For math:: aggregates of the numbers at `path`: their summary, computed by the database over
   * the path's value rows (their column `num`) when they stand for the candidates (valueWalk());
   * else null. One statement, or on SQLite one per slice of the rows (DocumentIndexReader).
   */
  async numbers(path: FieldPath): Promise<NumberSummary | null> {
    const walked = this.request.unordered ? await this.walkOf(path) : null;
    if (walked === null) return null;
    const result = await this.ask({ ...walkQuery(walked.walk, walked.select, null), select: { kind: 'numbers' } });
    return 'numbers' in result ? result.numbers : null;
  }

  /** The walk of `path`'s value rows, when the request is answered exactly and they stand for its candidates. */
  private async walkOf(path: FieldPath): Promise<{ walk: ValueWalk; where: DocumentCondition; select: DocumentSelection } | null> {
    const { where, exact, select } = await this.prepare();
    const walk = exact ? await this.valueWalk(where, select) : null;
    return walk && walk.path === path.join('.') ? { walk, where, select } : null;
  }

  private async *walkValues(first: DocumentQuery, path: FieldPath, pageSize: number): AsyncGenerator<unknown[]> {
    const batcher = this.context.batcher;
    for await (const rows of this.rowPages(first, pageSize)) {
      let partial = false;
      const values = rows.map((row): unknown => {
        const value = decodeScalar(row.values![0]!);
        if (value !== undefined) return value;
        partial = true;
        return batcher.content(row.id).then((document) => readPath(document, path));
      });
      yield partial ? await Promise.all(values) : values;
    }
  }

  /**
   * The rows of `first` and of each query after its last row, a page at a time, until a page is not
   * full, or `total` rows have been read. `cap`: the most rows a page after the first may hold,
   * asked as it is requested.
   */
  private async *rowPages(first: DocumentQuery, pageSize: number, cap?: () => number, total = Infinity): AsyncGenerator<DocumentRow[]> {
    // Documents (whole or in part) are read a few first, as their size is not known: a page of a
    // thousand 200 KB documents was 200 MB at once. After, a page holds about PAGE_TEXT_BYTES of
    // them at the largest size per document seen so far (of a part, its document's).
    let perRow = 0;
    const sized = (query: DocumentQuery): DocumentQuery => {
      const fitting = perRow === 0 ? pageSize : Math.floor(PAGE_TEXT_BYTES / perRow);
      return { ...query, limit: Math.max(1, Math.min(pageSize, fitting, cap ? cap() : pageSize, total - read)) };
    };
    let read = 0;
    // The first page is also cut where its documents add up to a page (their stored sizes come
    // with them): the rows past that come without content, and are read again in the next page.
    // One document (a lookup) comes whole however large: nothing to cut.
    const documents = first.select.kind === 'content' || first.select.kind === 'paths';
    const firstLimit = Math.min(first.limit ?? FIRST_DOCUMENTS, FIRST_DOCUMENTS);
    let query: DocumentQuery | null = documents ? { ...first, limit: firstLimit, ...(firstLimit > 1 ? { contentBudget: PAGE_TEXT_BYTES } : {}) } : first;
    let next: Promise<DocumentRow[]> | null = this.rows(query);
    while (query && next) {
      const fetched: DocumentRow[] = await next;
      const cut: number = query.contentBudget === undefined ? -1 : fetched.findIndex((row) => row.content === null);
      const rows: DocumentRow[] = cut === -1 ? fetched : fetched.slice(0, cut);
      read += rows.length;
      if (rows.length > 0) perRow = Math.max(perRow, textCharacters(rows) / rows.length);
      const last: DocumentRow | undefined = rows[rows.length - 1];
      // A first page's offset (a window's start) is behind the page after it. Nothing is read
      // ahead past what the caller wants (a lookup's one document was a second round trip).
      const more: boolean = cut !== -1 || fetched.length === query.limit;
      query = last && more && read < total ? { ...query, offset: 0, limit: pageSize, after: { id: last.id, value: last.sortValue }, contentBudget: undefined } : null;
      next = null;
      // Where the database reads beside this thread, the next page is read while the evaluator
      // works on this one (memory then holds two pages).
      if (query && this.context.readsOffThread) {
        query = sized(query);
        next = this.rows(query);
        // It may fail while this page is out: handled here, it still throws where it is awaited.
        next.catch(() => undefined);
        // The statement leaves on a later tick (the batch, the pool's hand-out of a client): let it
        // go before the evaluator takes the thread for this page.
        await nextTurn();
      }
      yield rows;
      if (query && !next) {
        query = sized(query);
        next = this.rows(query);
      }
    }
  }

  /**
   * For candidates wanted in any order (ScanRequest.unordered), reading one path's values of the
   * documents of some types: the query of that path's value rows, when they are exactly what the
   * scan yields, so that walking them in value order (index only) can stand for the type's
   * documents in id order. That is when every document with a scalar there is of those types, and
   * none of them has an object or array there (whose value is not null, and which has no value
   * row); documents with nothing there are left out, which changes nothing: the query reads null
   * from them, and the aggregates that take any order skip nulls. Conditions on ids alone (a
   * perspective's "no drafts") hold on the value rows too, which carry the id. Null when the scan
   * stays as it is.
   */
  private async valueWalk(where: DocumentCondition, select: DocumentSelection): Promise<ValueWalk | null> {
    if (select.kind !== 'values' || select.type || select.paths.length !== 1) return null;
    const parts = conjuncts(where);
    const typed = parts.filter((part) => part.kind === 'type');
    const onIds = parts.filter((part) => part.kind !== 'type');
    if (typed.length !== 1 || onIds.some((part) => holds(part, BESIDES_IDS))) return null;
    const types = (typed[0] as Extract<DocumentCondition, { kind: 'type' }>).types;
    const path = select.paths[0]!;
    const { byHash, nonScalarPaths } = await this.context.shapes();
    if (nonScalarPaths.has(path)) return null;
    for (const shape of byHash.values()) if (shape.paths.get(path) === 's' && !types.includes(shape.type)) return null;
    return { path, types, onIds };
  }

  /**
   * The window [start, end) of the filtered documents in the request's order, or null when the
   * index cannot follow that order exactly (the evaluator then orders all candidates).
   */
  private async window(where: DocumentCondition, select: DocumentSelection, { start, end }: { start: number; end: number }, pageSize: number): Promise<unknown[] | null> {
    // A window of whole documents is read a page at a time too: [0...2000] of 200 KB documents
    // was 400 MB in one statement. One of FIRST_DOCUMENTS or fewer is still one statement.
    const read = (query: DocumentQuery) => (select.kind === 'content' ? this.inPages(query, pageSize) : this.rows(query));
    let terms = this.request.order ?? [];
    // Ties keep dataset order, so a last `_id` ascending term changes nothing.
    if (terms.length > 1 && isIdTerm(terms[terms.length - 1]!.path) && !terms[terms.length - 1]!.descending) terms = terms.slice(0, -1);
    if (terms.length === 0 || (terms.length === 1 && isIdTerm(terms[0]!.path))) {
      const order: DocumentOrder = { kind: 'id', descending: terms[0]?.descending ?? false };
      const rows = await read({ where, order, offset: start, limit: end - start, select });
      // Documents that are the query's result as they are need no parsing: their text is written.
      if (this.request.verbatim && this.context.verbatim && select.kind === 'content') return rows.map((row) => verbatimDocument(row.content));
      return this.documents(rows, select);
    }
    if (terms.length !== 1 || !isIndexedPath(terms[0]!.path)) return null;
    const { path, descending } = terms[0]!;
    const key = path.join('.');
    // Documents without a scalar at the path sort after the others, or before them descending,
    // in dataset order; which they are is known from the shapes.
    const shapes = (this.shapes = await this.context.shapes());
    const unrankedWhere = and([where, shapes.translator.withoutScalar(key, typesOf(where))]);
    const unranked: DocumentQuery = { where: unrankedWhere, order: { kind: 'id', descending: false }, offset: 0, limit: null, select };
    const ranked: DocumentQuery = { where, order: { kind: 'value', path: key, descending }, offset: 0, limit: null, select };
    const [first, second] = descending ? [unranked, ranked] : [ranked, unranked];
    const none = (query: DocumentQuery) => query === unranked && unrankedWhere.kind === 'none';
    const head = none(first) ? [] : await read({ ...first, offset: start, limit: end - start });
    let rows = head;
    if (head.length < end - start) {
      // The first part ended inside the window (or before it: then its length is counted).
      let firstLength = none(first) ? 0 : start + head.length;
      if (head.length === 0 && start > 0 && !none(first)) {
        const counted = await this.ask({ ...first, select: { kind: 'count' } });
        firstLength = 'count' in counted ? counted.count : 0;
      }
      const from = Math.max(start, firstLength);
      rows = [...head, ...(none(second) ? [] : await read({ ...second, offset: from - firstLength, limit: end - from }))];
    }
    const documents = await this.documents(rows, select);
    // The index orders strings by code point and GROQ by UTF-16 unit: both agree unless a key
    // reaches the surrogates, or is too long for the index to hold whole.
    for (const document of documents) {
      const value = readPath(document, path);
      if (typeof value === 'string' && !isOrderSafeString(value)) return null;
    }
    return documents;
  }

  /**
   * The documents of rows: parsed (whole, or the attributes selected with the row's id and type), or
   * assembled from their indexed values (`values[i]` per row). A
   * document is read whole where a value cannot stand for it: a long string, or (which only its
   * shape tells) an object or array at a requested path.
   */
  private async documents(rows: readonly DocumentRow[], select: DocumentSelection): Promise<unknown[]> {
    if (select.kind === 'paths') return rows.map((row) => withColumns(partAt(select.paths, jsonColumn<unknown[]>(row.content)), row));
    if (select.kind !== 'values') return rows.map((row) => readDocument(row.content));
    const batcher = this.context.batcher;
    const keys = select.paths;
    const paths = keys.map((key) => key.split('.'));
    const encoded = rows.map((row) => row.values ?? []);
    // Where a value is missing, the shapes tell whether some document has an object or array there.
    const missing = keys.length > 0 && encoded.some((values) => keys.some((_, i) => (values[i] ?? null) === null));
    const { byHash, nonScalarPaths } = missing ? await this.context.shapes() : { byHash: new Map<string, ShapeInfo>(), nonScalarPaths: new Set<string>() };
    const documents = rows.map((row, r): unknown => {
      const document: Record<string, unknown> = { _id: row.id };
      if (row.type !== undefined) document['_type'] = row.type;
      let maybeObject = false;
      for (let i = 0; i < paths.length; i++) {
        const value = encoded[r]![i] ?? null;
        if (value === null) {
          // Absent or null, unless some document of the dataset has an object or array there.
          if (nonScalarPaths.has(keys[i]!)) maybeObject = true;
          continue;
        }
        const scalar = decodeScalar(value);
        if (scalar === undefined) return batcher.content(row.id);
        placeAtPath(document, paths[i]!, scalar);
      }
      if (!maybeObject) return document;
      return batcher.shape(row.id).then((hash) => {
        const shape = hash === null ? undefined : byHash.get(hash);
        const whole = !shape || keys.some((key) => shape.paths.get(key) === 'o' || shape.paths.get(key) === 'a');
        return whole ? batcher.content(row.id) : document;
      });
    });
    return documents.some((document) => document instanceof Promise) ? Promise.all(documents) : documents;
  }
}

/** The value rows of one path that stand for a scan's candidates (ScanExecution.valueWalk()). */
interface ValueWalk {
  path: string;
  /** The scan's types: every document with a scalar at the path is of one of them. */
  types: readonly string[];
  /** The scan's conditions on ids alone, which hold on the value rows too. */
  onIds: readonly DocumentCondition[];
}

/** The first page of a walk's value rows, in value order. */
/** Whole documents in a scan's first page, before their size is known. */
const FIRST_DOCUMENTS = 32;

/**
 * What the whole documents among `rows` take, in characters or bytes: the larger of their text's
 * length (where they came parsed, in bytes: at least its characters) and what their parse takes
 * (stored beside them; a few MB of small objects parse into hundreds).
 */
function textCharacters(rows: readonly DocumentRow[]): number {
  let characters = 0;
  for (const row of rows) characters += Math.max(typeof row.content === 'string' ? row.content.length : 0, row.contentBytes ?? 0);
  return characters;
}

function walkQuery({ path, onIds }: ValueWalk, select: DocumentSelection, limit: number | null): DocumentQuery {
  return { where: and([{ kind: 'value', path }, ...onIds]), order: { kind: 'value', path, descending: false }, offset: 0, limit, select };
}

/** Whether the request orders by anything but ids (a window then reads the shapes anyway). */
function ordersByValue(request: ScanRequest): boolean {
  return (request.order ?? []).some((term) => !isIdTerm(term.path));
}

function isIdTerm(path: FieldPath): boolean {
  return path.length === 1 && path[0] === '_id';
}

/** A document cut down to the values at some paths (null where it has none). */
function partAt(paths: readonly DocumentPath[], values: readonly unknown[]): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  paths.forEach((path, i) => {
    const value = values[i] ?? null;
    // Null and absent read the same at a read path, and nothing else of the document is read.
    if (value !== null) placeAtPath(part, path, value);
  });
  return part;
}

/** A document cut down to some paths, with the id and type its row has beside them. */
function withColumns(document: Record<string, unknown>, row: DocumentRow): Record<string, unknown> {
  document['_id'] = row.id;
  if (row.type !== undefined) document['_type'] = row.type;
  return document;
}
