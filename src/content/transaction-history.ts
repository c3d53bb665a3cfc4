import { LRUCache } from 'lru-cache';
import { badRequest, forbidden, notFound } from '../errors.ts';
import type { ProjectRecord, Store, StoredDocument } from '../store/index.ts';
import type { ChangeWindow, LoggedChange } from '../store/repos/transaction-log.ts';
import { revisionKey } from '../store/repos/revisions.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { effects } from '../mendoza/index.ts';
import { baseIdOf, draftIdOf, isDraftId } from './document-ids.ts';
import { TimeSlices } from '../time-slices.ts';

/** What `GET /data/history/:dataset/transactions/:ids` asks (Sanity's History API). */
export interface TransactionQuery {
  documentIds: readonly string[];
  /** `excludeContent`: Sanity refuses false (403), and so do we; absent counts as true. */
  excludeContent?: boolean;
  /** `effectFormat=mendoza`: each line's `effects`. */
  effects: boolean;
  /** Not `excludeMutations`: each line's `mutations`. */
  mutations: boolean;
  /** Newest first. */
  reverse: boolean;
  limit?: number;
  /** Inclusive, as in Sanity (Studio drops the line of the id it pages from). */
  fromTransaction?: string;
  toTransaction?: string;
  /** Inclusive. */
  fromTime?: string;
  toTime?: string;
  authors?: readonly string[];
  /** `documentIDs` and `effects` only for the asked ids, not every document the transaction wrote. */
  identifiedOnly: boolean;
}

/**
 * One line of the NDJSON answer, in Sanity's shape, as JSON text ending in a newline:
 * `{id, timestamp, author, documentIDs, effects?: {<documentId>: {apply, revert}}, mutations?}`.
 * `author` is the user id, `token:<id>`, or `system`, as listener events name it.
 */
export interface TransactionLine {
  /** The transaction's id. */
  id: string;
  text: string;
}

/** Where in the past `GET /data/history/:dataset/documents/:ids` looks: exactly one of these. */
export interface DocumentsAt {
  revision?: string;
  time?: string;
  lastRevision?: boolean;
}

/** Authors one request may filter by (each is a parameter of every document's statement). */
const MAX_AUTHORS = 100;
/** Transactions read from the log per round when no smaller limit bounds them. */
const BATCH = 100;
/**
 * Document text whose versions one step of lines holds at once, about: a line's effects or
 * mutations need its document before and after. A hundred lines of a 16 MB document at once were
 * GBs; the step is sized by the documents' current length.
 */
const LINES_TEXT_BYTES = 16 * 1024 * 1024;
/**
 * Effects already computed, as JSON text, by project, dataset, document and transaction: a
 * transaction's effects never change, and Studio asks for the same 50 every time a document is
 * opened. Bounded in characters (about 32 MB), least recently used first out.
 */
const EFFECTS_CACHE_CHARS = 16 * 1024 * 1024;

/**
 * Sanity's History API over the change log: the transactions that touched some documents, with
 * mendoza effects computed from the revisions the log names (so history costs nothing at write
 * time), and the documents as they were at a transaction or a time.
 */
export class TransactionHistory {
  private readonly store: Store;
  private readonly effectsCache: LRUCache<string, string> | undefined;

  /** `effectsCacheChars`: 0 computes effects every time (benchmarks measure that). */
  constructor(store: Store, effectsCacheChars = EFFECTS_CACHE_CHARS) {
    this.store = store;
    this.effectsCache =
      effectsCacheChars > 0 ? new LRUCache({ maxSize: effectsCacheChars, sizeCalculation: (value, key) => value.length + key.length }) : undefined;
  }

  /**
   * Checks access and the query and reads the first transaction (errors are thrown here, before a
   * line is sent), then reads the others lazily, a batch at a time.
   */
  async transactions(actor: Principal, project: ProjectRecord, dataset: string, query: TransactionQuery): Promise<AsyncIterable<TransactionLine>> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    if (query.excludeContent === false) throw forbidden('This API requires excludeContent to be true');
    const window: Omit<ChangeWindow, 'after'> = { reverse: query.reverse };
    if (query.fromTransaction !== undefined) window.minSeq = (await this.span(project, dataset, query.fromTransaction)).first;
    if (query.toTransaction !== undefined) window.maxSeq = (await this.span(project, dataset, query.toTransaction)).last;
    if (query.fromTime !== undefined) window.fromTime = isoTime(query.fromTime, 'fromTime');
    if (query.toTime !== undefined) window.toTime = isoTime(query.toTime, 'toTime');
    if (query.authors !== undefined) {
      if (query.authors.length === 0) throw badRequest('authors names no author: give user ids, token:<id> or system, separated by commas');
      if (query.authors.length > MAX_AUTHORS) throw badRequest(`authors may name at most ${MAX_AUTHORS} authors`);
      window.authors = query.authors;
    }
    // The first round is read now: what fails there (most failures) is an HTTP error, not a last line.
    const lines = this.read(project.id, dataset, query, window);
    const first = await lines.next();
    return (async function* () {
      if (first.done) return;
      yield first.value;
      yield* lines;
    })();
  }

  /**
   * The documents as they were right after transaction `revision`, at `time`, or last before
   * deletion, as the JSON text of `{documents}`, in the order asked: read and written a step at a
   * time, sized as the lines of `transactions` are (a hundred large documents at once were GBs).
   */
  async documentsAt(actor: Principal, project: ProjectRecord, dataset: string, ids: readonly string[], at: DocumentsAt): Promise<AsyncGenerator<string>> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const given = [at.revision !== undefined, at.time !== undefined, at.lastRevision === true].filter(Boolean).length;
    if (given !== 1) throw badRequest('Give exactly one of revision, time and lastRevision=true');
    const documentIds = [...new Set(ids)];
    const log = this.store.transactionLog;
    let changes: LoggedChange[];
    if (at.revision !== undefined) {
      const span = await log.transactionSpan(project.id, dataset, at.revision);
      if (!span) throw notFound(`Revision "${at.revision}" not found in dataset "${dataset}"`);
      changes = await log.lastChanges(project.id, dataset, documentIds, { maxSeq: span.last });
    } else if (at.time !== undefined) {
      changes = await log.lastChanges(project.id, dataset, documentIds, { toTime: isoTime(at.time, 'time') });
    } else {
      changes = await log.lastChanges(project.id, dataset, documentIds, { existing: true });
    }
    const byId = new Map(changes.filter((change) => change.resultRev !== null).map((change) => [change.documentId, change]));
    const existing = documentIds.flatMap((id) => byId.get(id) ?? []);
    const step = await this.stepFor(project.id, dataset, documentIds, 1);
    const read = (changes: LoggedChange[]) => this.contents(project.id, dataset, changes, (change) => [change.resultRev]);
    return (async function* () {
      yield '{"documents":[';
      let written = 0;
      for (let start = 0; start < existing.length; start += step) {
        const chunk = existing.slice(start, start + step);
        const contents = await read(chunk);
        for (const change of chunk) {
          const document = contents.get(afterKey(change));
          if (document) yield `${written++ === 0 ? '' : ','}${JSON.stringify(document)}`;
        }
      }
      yield ']}';
    })();
  }

  private async span(project: ProjectRecord, dataset: string, transactionId: string) {
    const span = await this.store.transactionLog.transactionSpan(project.id, dataset, transactionId);
    if (!span) throw notFound(`Transaction "${transactionId}" not found in dataset "${dataset}"`);
    return span;
  }

  /**
   * Each round reads up to `want` changes of every asked document beyond the cursor, and sends the
   * transactions whose place is certain: those at or before the frontier, the furthest point any
   * document with more changes was read to (a transaction's place is its newest change among the
   * asked documents, its oldest when reading forwards). The document that set the frontier gave
   * `want` changes up to it, one transaction each, so a round with a limit of at most BATCH is
   * the only one. A transaction's rows are then read whole by its id.
   */
  private async *read(projectId: string, dataset: string, query: TransactionQuery, window: Omit<ChangeWindow, 'after'>): AsyncGenerator<TransactionLine> {
    const documentIds = [...new Set(query.documentIds)];
    const sent = new Set<string>();
    const step = await this.linesPerStep(projectId, dataset, documentIds, query);
    const slices = new TimeSlices();
    let cursor: number | undefined;
    for (;;) {
      const remaining = query.limit === undefined ? Infinity : query.limit - sent.size;
      if (remaining <= 0) return;
      const want = Math.min(BATCH, remaining);
      const rows = await this.store.transactionLog.documentChanges(
        projectId,
        dataset,
        documentIds,
        { ...window, ...(cursor !== undefined ? { after: cursor } : {}) },
        want,
      );
      const ahead = (a: number, b: number) => (query.reverse ? a > b : a < b);
      const perDocument = new Map<string, { count: number; last: number }>();
      const places = new Map<string, number>();
      for (const row of rows) {
        const read = perDocument.get(row.documentId);
        perDocument.set(row.documentId, { count: (read?.count ?? 0) + 1, last: read && ahead(read.last, row.seq) ? row.seq : (read?.last ?? row.seq) });
        if (sent.has(row.transactionId)) continue;
        const place = places.get(row.transactionId);
        if (place === undefined || ahead(row.seq, place)) places.set(row.transactionId, row.seq);
      }
      let frontier: number | undefined;
      for (const { count, last } of perDocument.values()) {
        if (count === want && (frontier === undefined || ahead(last, frontier))) frontier = last;
      }
      const ready = [...places]
        .filter(([, place]) => frontier === undefined || place === frontier || ahead(place, frontier))
        .sort(([, a], [, b]) => (ahead(a, b) ? -1 : 1))
        .slice(0, remaining)
        .map(([id]) => id);
      for (let start = 0; start < ready.length; start += step) {
        for (const line of await this.lines(projectId, dataset, ready.slice(start, start + step), query)) {
          sent.add(line.id);
          yield line;
        }
        // Effects are computed on the server's thread: a long history gives other requests turns.
        await slices.pause();
      }
      if (frontier === undefined) return;
      cursor = frontier;
    }
  }

  /** How many lines are made at once: BATCH, or fewer where the documents' versions are large. */
  private linesPerStep(projectId: string, dataset: string, documentIds: readonly string[], query: TransactionQuery): Promise<number> {
    return query.effects || query.mutations ? this.stepFor(projectId, dataset, documentIds, 2) : Promise.resolve(BATCH);
  }

  /** Steps that each hold `versions` versions of the documents fit in LINES_TEXT_BYTES by their current length; at most BATCH. */
  private async stepFor(projectId: string, dataset: string, documentIds: readonly string[], versions: number): Promise<number> {
    const named = [...new Set(documentIds.flatMap((id) => [baseIdOf(id), draftIdOf(baseIdOf(id))]))];
    const largest = await this.store.documents.largestText(projectId, dataset, named);
    return Math.max(1, Math.min(BATCH, Math.floor(LINES_TEXT_BYTES / Math.max(1, versions * largest))));
  }

  /** The lines of these transactions, in this order. */
  private async lines(projectId: string, dataset: string, transactionIds: readonly string[], query: TransactionQuery): Promise<TransactionLine[]> {
    if (transactionIds.length === 0) return [];
    const rows = await this.store.transactionLog.transactionChanges(projectId, dataset, transactionIds, query.identifiedOnly ? query.documentIds : undefined);
    rows.sort((a, b) => a.seq - b.seq);
    const cacheKey = (change: LoggedChange) => `${projectId}\u0000${dataset}\u0000${change.documentId}\u0000${change.transactionId}`;
    const cached = new Map<LoggedChange, string>();
    if (query.effects) {
      for (const row of rows) {
        const json = this.effectsCache?.get(cacheKey(row));
        if (json !== undefined) cached.set(row, json);
      }
    }
    const contents = await this.contents(projectId, dataset, rows, (row) => [
      ...(query.effects && !cached.has(row) ? [row.previousRev, row.resultRev] : []),
      ...(query.mutations && row.mutations === null ? [row.resultRev] : []),
    ]);
    const byTransaction = new Map<string, LoggedChange[]>(transactionIds.map((id) => [id, []]));
    for (const row of rows) byTransaction.get(row.transactionId)?.push(row);
    const lines: TransactionLine[] = [];
    for (const [id, changes] of byTransaction) {
      const first = changes[0];
      if (!first) continue;
      const parts = [JSON.stringify({ id, timestamp: first.createdAt, author: first.actor ?? 'system', documentIDs: changes.map((change) => change.documentId) }).slice(0, -1)];
      if (query.effects) {
        const effectsJson = changes.map((change) => {
          let json = cached.get(change);
          if (json === undefined) {
            const before = change.previousRev === null ? null : (contents.get(versionKey(change, change.previousRev)) ?? null);
            json = JSON.stringify(effects(before, contents.get(afterKey(change)) ?? null));
            this.effectsCache?.set(cacheKey(change), json);
          }
          return `${JSON.stringify(change.documentId)}:${json}`;
        });
        parts.push(`,"effects":{${effectsJson.join(',')}}`);
      }
      if (query.mutations) {
        const mutations = changes.flatMap((change) => {
          if (change.mutations) return change.mutations;
          const after = contents.get(afterKey(change));
          return [after ? { createOrReplace: after } : { delete: { id: change.documentId } }];
        });
        parts.push(`,"mutations":${JSON.stringify(mutations)}`);
      }
      lines.push({ id, text: `${parts.join('')}}\n` });
    }
    return lines;
  }

  /** The versions `revs` names for each change (transaction ids of revisions of its document), in one statement. */
  private async contents(projectId: string, dataset: string, changes: readonly LoggedChange[], revs: (change: LoggedChange) => (string | null)[]) {
    const transactionIds = new Set<string>();
    const baseIds = new Set<string>();
    for (const change of changes) {
      for (const rev of revs(change)) {
        if (rev === null) continue;
        transactionIds.add(rev);
        baseIds.add(baseIdOf(change.documentId));
      }
    }
    if (transactionIds.size === 0) return new Map<string, StoredDocument>();
    return this.store.revisions.contents(projectId, dataset, [...baseIds], [...transactionIds]);
  }
}

function versionKey(change: LoggedChange, rev: string): string {
  return revisionKey(baseIdOf(change.documentId), isDraftId(change.documentId), rev);
}

function afterKey(change: LoggedChange): string {
  return change.resultRev === null ? '' : versionKey(change, change.resultRev);
}

/** An ISO 8601 time as stored (UTC with milliseconds), so that text comparison on SQLite is time order. */
function isoTime(value: string, name: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw badRequest(`${name} must be an ISO 8601 date and time`);
  return time.toISOString();
}
