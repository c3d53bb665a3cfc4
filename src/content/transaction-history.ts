import { LRUCache } from 'lru-cache';
import { badRequest, forbidden, notFound } from '../errors.ts';
import type { ProjectRecord, Store, StoredDocument } from '../store/index.ts';
import type { ChangeWindow, LoggedChange } from '../store/repos/transaction-log.ts';
import { revisionKey } from '../store/repos/revisions.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { effects } from '../mendoza/index.ts';
import { baseIdOf, isDraftId } from './document-ids.ts';
import { TimeSlices } from '../time-slices.ts';
import { heapShare } from '../heap-share.ts';
import { chunksWithin } from '../store/stored-size-pages.ts';

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
 * Text that one step of lines reads at once, about: the versions of documents a line's effects
 * and mutations need (each document before and after) and its mutations, by their lengths, read
 * first. A round of 100 lines of a 16 MB document was GBs; so were 100 transactions that each
 * sent a large document whole. A transaction beyond it alone is read a part of its documents at
 * a time. A step holds its text several times over (as read, as parsed, as written out): a
 * thirty-second of the heap limit, 16 MB at the default.
 */
const LINES_TEXT_BYTES = heapShare(1 / 32);
/** The lines of a step are sent once they are this long (and at its end). */
const SEND_CHARS = 1024 * 1024;
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
  private readonly linesTextBytes: number;

  /**
   * `effectsCacheChars`: 0 computes effects every time (benchmarks measure that); `linesTextBytes`:
   * what a step reads at once (tests make every transaction one beyond it).
   */
  constructor(store: Store, { effectsCacheChars = EFFECTS_CACHE_CHARS, linesTextBytes = LINES_TEXT_BYTES } = {}) {
    this.store = store;
    this.linesTextBytes = linesTextBytes;
    this.effectsCache =
      effectsCacheChars > 0 ? new LRUCache({ maxSize: effectsCacheChars, sizeCalculation: (value, key) => value.length + key.length }) : undefined;
  }

  /**
   * The NDJSON answer: a line per transaction in Sanity's shape, as JSON text ending in a newline,
   * `{id, timestamp, author, documentIDs, effects?: {<documentId>: {apply, revert}}, mutations?}`
   * (`author` the user id, `token:<id>`, or `system`, as listener events name it), as pieces of
   * text: the lines of a step, or a part of one line (a transaction that changed many large
   * documents is made a part at a time).
   * Checks access and the query and reads the first piece (errors are thrown here, before a line
   * is sent), then reads the others lazily, a step at a time.
   */
  async transactions(actor: Principal, project: ProjectRecord, dataset: string, query: TransactionQuery): Promise<AsyncIterable<string>> {
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
    // The first step is read now: what fails there (most failures) is an HTTP error, not a last line.
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
    const lengths = await this.versionLengths(project.id, dataset, existing, (change) => [change.resultRev]);
    const read = (changes: LoggedChange[]) => this.contents(project.id, dataset, changes, (change) => [change.resultRev]);
    const budget = this.linesTextBytes;
    return (async function* () {
      yield '{"documents":[';
      let written = 0;
      for (const chunk of chunksWithin(existing, (change) => lengths.get(afterKey(change)) ?? 0, budget)) {
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
  private async *read(projectId: string, dataset: string, query: TransactionQuery, window: Omit<ChangeWindow, 'after'>): AsyncGenerator<string> {
    const documentIds = [...new Set(query.documentIds)];
    const sent = new Set<string>();
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
      for (const id of ready) sent.add(id);
      yield* this.lines(projectId, dataset, ready, query, slices);
      if (frontier === undefined) return;
      cursor = frontier;
    }
  }

  /**
   * The lines of these transactions, in this order: in steps of whole transactions whose versions
   * and mutations fit in `linesTextBytes` (LINES_TEXT_BYTES) together, each step read at once; a
   * transaction beyond it in a step of its own, read a part of its documents at a time. Effects
   * are computed on the server's thread: between steps and parts, other requests get turns.
   */
  private async *lines(projectId: string, dataset: string, transactionIds: readonly string[], query: TransactionQuery, slices: TimeSlices): AsyncGenerator<string> {
    if (transactionIds.length === 0) return;
    const rows = await this.store.transactionLog.transactionChanges(projectId, dataset, transactionIds, query.identifiedOnly ? query.documentIds : undefined);
    rows.sort((a, b) => a.seq - b.seq);
    const byTransaction = new Map<string, LoggedChange[]>(transactionIds.map((id) => [id, []]));
    for (const row of rows) byTransaction.get(row.transactionId)?.push(row);
    const cacheKey = (change: LoggedChange) => `${projectId}\u0000${dataset}\u0000${change.documentId}\u0000${change.transactionId}`;
    const cachedEffects = new Map<LoggedChange, string>();
    if (query.effects) {
      for (const row of rows) {
        const json = this.effectsCache?.get(cacheKey(row));
        if (json !== undefined) cachedEffects.set(row, json);
      }
    }
    // The versions each part of a line reads: a document before and after for its effects, after
    // for its mutations when the write did not come from mutations.
    const effectVersions = (row: LoggedChange) => (query.effects && !cachedEffects.has(row) ? [row.previousRev, row.resultRev] : []);
    const mutationVersions = (row: LoggedChange) => (query.mutations && row.mutationsBytes === null ? [row.resultRev] : []);
    const lengths = await this.versionLengths(projectId, dataset, rows, (row) => [...effectVersions(row), ...mutationVersions(row)]);
    const versionsBytes = (row: LoggedChange, revs: (string | null)[]) => revs.reduce((sum, rev) => sum + (rev === null ? 0 : (lengths.get(versionKey(row, rev)) ?? 0)), 0);
    const effectBytes = (row: LoggedChange) => versionsBytes(row, effectVersions(row));
    const mutationBytes = (row: LoggedChange) => (query.mutations ? (row.mutationsBytes ?? 0) : 0) + versionsBytes(row, mutationVersions(row));
    const load = async (changes: readonly LoggedChange[], parts: { effects: boolean; mutations: boolean }): Promise<LineInputs> => {
      const withMutations = parts.mutations && query.mutations ? changes.filter((change) => change.mutationsBytes !== null) : [];
      return {
        versions: await this.contents(projectId, dataset, changes, (change) => [...(parts.effects ? effectVersions(change) : []), ...(parts.mutations ? mutationVersions(change) : [])]),
        mutations: await this.store.changes.mutationsOf(projectId, dataset, withMutations.map((change) => change.seq)),
      };
    };
    const transactions = [...byTransaction].filter(([, changes]) => changes.length > 0);
    const transactionBytes = ([, changes]: [string, LoggedChange[]]) => changes.reduce((sum, change) => sum + effectBytes(change) + mutationBytes(change), 0);
    for (const step of chunksWithin(transactions, transactionBytes, this.linesTextBytes)) {
      const whole = step.length > 1 || transactionBytes(step[0]!) <= this.linesTextBytes;
      const inputs = whole ? await load(step.flatMap(([, changes]) => changes), { effects: true, mutations: true }) : undefined;
      // The lines of a step read at once are sent together; one beyond the budget, a part at a time.
      const text = new Gathered();
      for (const [id, changes] of step) {
        const first = changes[0]!;
        text.push(JSON.stringify({ id, timestamp: first.createdAt, author: first.actor ?? 'system', documentIDs: changes.map((change) => change.documentId) }).slice(0, -1));
        if (query.effects) {
          text.push(',"effects":{');
          let written = 0;
          for (const part of whole ? [changes] : chunksWithin(changes, effectBytes, this.linesTextBytes)) {
            const { versions } = inputs ?? (await load(part, { effects: true, mutations: false }));
            for (const change of part) {
              let json = cachedEffects.get(change);
              if (json === undefined) {
                const before = change.previousRev === null ? null : (versions.get(versionKey(change, change.previousRev)) ?? null);
                json = JSON.stringify(effects(before, versions.get(afterKey(change)) ?? null));
                this.effectsCache?.set(cacheKey(change), json);
              }
              text.push(`${written++ === 0 ? '' : ','}${JSON.stringify(change.documentId)}:${json}`);
            }
            if (!whole) yield text.take();
            await slices.pause();
          }
          text.push('}');
        }
        if (query.mutations) {
          text.push(',"mutations":[');
          let written = 0;
          for (const part of whole ? [changes] : chunksWithin(changes, mutationBytes, this.linesTextBytes)) {
            const { versions, mutations } = inputs ?? (await load(part, { effects: false, mutations: true }));
            for (const change of part) {
              // Mutations as the log keeps them, the JSON text of an array: its items are spliced in.
              const sent = mutations.get(change.seq)?.slice(1, -1) ?? JSON.stringify(equivalentMutation(change, versions.get(afterKey(change))));
              if (sent !== '') text.push(`${written++ === 0 ? '' : ','}${sent}`);
            }
            if (!whole) yield text.take();
            await slices.pause();
          }
          text.push(']');
        }
        text.push('}\n');
        if (text.length >= SEND_CHARS) yield text.take();
      }
      if (text.length > 0) yield text.take();
      await slices.pause();
    }
  }

  /** The lengths in bytes of the versions `revs` names for each change, read without reading them. */
  private async versionLengths(projectId: string, dataset: string, changes: readonly LoggedChange[], revs: (change: LoggedChange) => (string | null)[]) {
    const { baseIds, transactionIds } = versionsNamed(changes, revs);
    if (transactionIds.length === 0) return new Map<string, number>();
    return this.store.revisions.textLengths(projectId, dataset, baseIds, transactionIds);
  }

  /** The versions `revs` names for each change (transaction ids of revisions of its document), in one statement. */
  private async contents(projectId: string, dataset: string, changes: readonly LoggedChange[], revs: (change: LoggedChange) => (string | null)[]) {
    const { baseIds, transactionIds } = versionsNamed(changes, revs);
    if (transactionIds.length === 0) return new Map<string, StoredDocument>();
    return this.store.revisions.contents(projectId, dataset, baseIds, transactionIds);
  }
}

/** Pieces of the answer gathered until they are sent. */
class Gathered {
  private parts: string[] = [];
  length = 0;

  push(part: string): void {
    this.parts.push(part);
    this.length += part.length;
  }

  take(): string {
    const text = this.parts.join('');
    this.parts = [];
    this.length = 0;
    return text;
  }
}

/** What one step of lines reads: versions of documents by versionKey, and mutations by the log's seq. */
interface LineInputs {
  versions: Map<string, StoredDocument>;
  /** As the JSON text of their array. */
  mutations: Map<number, string>;
}

/** What a write that was not mutations (publish, import, ...) reads as: the document after it, or its deletion. */
function equivalentMutation(change: LoggedChange, after: StoredDocument | undefined): unknown {
  return after ? { createOrReplace: after } : { delete: { id: change.documentId } };
}

/** The base ids and transaction ids of the revisions `revs` names for each change. */
function versionsNamed(changes: readonly LoggedChange[], revs: (change: LoggedChange) => (string | null)[]): { baseIds: string[]; transactionIds: string[] } {
  const transactionIds = new Set<string>();
  const baseIds = new Set<string>();
  for (const change of changes) {
    for (const rev of revs(change)) {
      if (rev === null) continue;
      transactionIds.add(rev);
      baseIds.add(baseIdOf(change.documentId));
    }
  }
  return { baseIds: [...baseIds], transactionIds: [...transactionIds] };
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
