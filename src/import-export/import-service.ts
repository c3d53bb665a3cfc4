import type { JsonObject, ProjectRecord, Repositories, Store, StoredDocument } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { actorIdOf } from '../content/actor.ts';
import { documentChange, documentEvent, revisionOf, type ChangeContext } from '../content/change-set.ts';
import { baseIdOf, isValidDocumentId, DOCUMENT_ID_PATTERN } from '../content/document-ids.ts';
import { MAX_DOCUMENT_HEAP_BYTES, storageCheck, TOO_HEAVY } from '../content/document-rules.ts';
import { DENSEST_JSON, parsedJsonBytes } from '../json/json-weight.ts';
import { parseRequestJson } from '../json/request-json.ts';
import type { NumberedLine } from './ndjson-lines.ts';
import { newId } from '../new-id.ts';

export interface ImportResult {
  total: number;
  created: number;
  replaced: number;
  skipped: number;
  errors: { line: number; error: string }[];
}

/**
 * Documents are written a batch at a time, so memory holds one batch whatever the import's size:
 * BATCH documents, or fewer once their parse comes to BATCH_HEAP bytes, as estimated from their
 * lines (500 documents of 1 MB would be half a gigabyte, twice over with the batch being written;
 * and a line of 8 MB can parse into 180 MB).
 */
const BATCH = 500;
const BATCH_HEAP = 16 * 1024 * 1024;
/** At most this many line errors are reported (the counts stay exact). */
const MAX_REPORTED_ERRORS = 1000;
const SYSTEM_PREFIXES = ['system.', '_.'];
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

interface Parsed {
  line: number;
  document: JsonObject & { _id: string; _type: string };
  /** What the document takes parsed (heapBytesOf). */
  heapBytes: number;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function timestampOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : fallback;
}

/**
 * POST /data/import: NDJSON read line by line; ids starting with
 * `system.` or `_.` skipped; existing documents skipped unless `replace`; `_createdAt` (and
 * `_updatedAt`) kept when present; everything in one transaction; malformed or invalid lines
 * reported with their numbers while the valid ones commit together. Each created or replaced
 * document gets its revision and one event.
 */
export class ImportService {
  private readonly store: Store;
  private readonly now: () => Date;

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  /** Throws unless `actor` may import into the dataset: checked before a body is received, and again by `import`. */
  authorize(actor: Principal, project: ProjectRecord, dataset: string): void {
    requireProjectRole(actor, project, 'admin', { dataset, sessionOnly: true });
  }

  async import(actor: Principal, project: ProjectRecord, dataset: string, lines: AsyncIterable<NumberedLine>, replace: boolean): Promise<ImportResult> {
    this.authorize(actor, project, dataset);
    const result: ImportResult = { total: 0, created: 0, replaced: 0, skipped: 0, errors: [] };
    const context: ChangeContext = {
      projectId: project.id,
      dataset,
      transactionId: newId(),
      actorId: actorIdOf(actor),
      now: this.now().toISOString(),
    };
    await this.store.transaction(async (tx) => {
      // Writers of the dataset's documents wait while the import runs (docs/decisions.md, Export and import).
      await tx.documents.lockDataset(project.id, dataset);
      let batch: Parsed[] = [];
      let batchHeap = 0;
      // One batch is written while the next is read and parsed (on PostgreSQL the database works
      // while this process parses); never more than one write is in flight.
      let writing: Promise<void> = Promise.resolve();
      const write = (documents: Parsed[]) => {
        writing = writeBatch(tx, context, documents, replace, result);
        // Handled now, thrown where it is awaited: a failure while the next batch is parsed is not unhandled.
        writing.catch(() => undefined);
      };
      try {
        for await (const { line, text, error } of lines) {
          if (error === undefined && text.trim() === '') continue;
          result.total++;
          const parsed = error ?? parseLine(text);
          if (typeof parsed === 'string') {
            if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, error: parsed });
            continue;
          }
          if (SYSTEM_PREFIXES.some((prefix) => parsed.document._id.startsWith(prefix))) {
            result.skipped++;
            continue;
          }
          batch.push({ line, ...parsed });
          batchHeap += parsed.heapBytes;
          if (batch.length >= BATCH || batchHeap >= BATCH_HEAP) {
            await writing;
            write(batch);
            batch = [];
            batchHeap = 0;
          }
        }
        await writing;
        write(batch);
        await writing;
      } finally {
        // A body that fails mid-stream must not leave a write running on the connection the transaction rolls back.
        await writing.catch(() => undefined);
      }
    });
    return result;
  }
}

/**
 * The document of a line with what it takes parsed, or why it is not one. A line whose parse is
 * estimated (parsedJsonBytes, from its text) far beyond what a document may take is not parsed
 * at all; the estimate counts the text twice over, hence the margin, and the document's own rule
 * is exact. Lines too short to parse into that much, whatever they hold, are not scanned.
 */
function parseLine(text: string): { document: JsonObject & { _id: string; _type: string }; heapBytes: number } | string {
  const margin = 2 * MAX_DOCUMENT_HEAP_BYTES;
  if (text.length * DENSEST_JSON > margin && parsedJsonBytes(text) > margin) return `the document ${TOO_HEAVY}`;
  let value: unknown;
  try {
    // The rule of every request body: a __proto__ key, or constructor.prototype, makes the line an error.
    value = parseRequestJson(text);
  } catch (error) {
    return `invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!isObject(value)) return 'not a JSON object';
  if (typeof value._type !== 'string' || value._type.length === 0) return '_type is required (a non-empty string)';
  if (value._id === undefined) value._id = newId();
  if (!isValidDocumentId(value._id)) return `_id must match ${DOCUMENT_ID_PATTERN}`;
  const checked = storageCheck(value);
  if ('problem' in checked) return `the document ${checked.problem}`;
  return { document: value as JsonObject & { _id: string; _type: string }, heapBytes: checked.heapBytes };
}

async function writeBatch(tx: Repositories, context: ChangeContext, batch: Parsed[], replace: boolean, result: ImportResult): Promise<void> {
  if (batch.length === 0) return;
  const { projectId, dataset, transactionId, now } = context;
  // With each existing document's _rev before it is overwritten, for real-time listeners' change log.
  const existing = await tx.documents.existing(projectId, dataset, batch.map((entry) => entry.document._id));
  // Documents an earlier batch of this import wrote: as within a batch, the later line wins, and
  // the import keeps one revision, one event and one change per document.
  const earlier = new Set([...existing].filter(([, { rev }]) => rev === transactionId).map(([id]) => id));
  const written = new Map<string, { document: StoredDocument; replaced: boolean }>();
  for (const { document } of batch) {
    const previous = written.get(document._id);
    const exists = previous !== undefined || existing.has(document._id);
    if (exists && !replace && !earlier.has(document._id)) {
      result.skipped++;
      continue;
    }
    const { _id, _type, _rev: _ignored, _createdAt, _updatedAt, ...fields } = document;
    const createdAt = timestampOr(_createdAt, previous?.document._createdAt ?? existing.get(_id)?.createdAt ?? now);
    const stored: StoredDocument = { _id, _type, _rev: transactionId, _createdAt: createdAt, _updatedAt: timestampOr(_updatedAt, now), ...fields };
    // A later line for the same id replaces an earlier one of this import: one write, one event.
    written.delete(_id);
    written.set(_id, { document: stored, replaced: exists && (previous?.replaced ?? true) });
    if (exists) result.replaced++;
    else result.created++;
  }
  const documents = [...written.values()].map((entry) => entry.document);
  if (documents.length === 0) return;
  // Those an earlier batch wrote already have this import's revision, event and change: only their content changes.
  const firstWrites = [...written.values()].filter(({ document }) => !earlier.has(document._id));
  const firstDocuments = firstWrites.map((entry) => entry.document);
  const replacedIds = firstDocuments.filter((document) => existing.has(document._id)).map((document) => baseIdOf(document._id));
  if (replacedIds.length > 0) await tx.revisions.preserveCurrent(projectId, dataset, [...new Set(replacedIds)]);
  // The index rows of new documents are written once, sorted, when the import's transaction completes.
  await tx.documents.putMany(projectId, dataset, documents, { deferIndex: true, heapBytes: new Map(batch.map((entry) => [entry.document._id, entry.heapBytes])) });
  const latest = await tx.revisions.latestNumbers(projectId, dataset, [...new Set(firstDocuments.map((document) => baseIdOf(document._id)))]);
  await tx.revisions.insertMany(
    firstDocuments.map((document) => {
      const baseId = baseIdOf(document._id);
      const revision = (latest.get(baseId) ?? 0) + 1;
      latest.set(baseId, revision);
      return { ...revisionOf(context, document), revision };
    }),
  );
  await tx.outbox.appendMany(
    firstWrites.map(({ document, replaced }) => documentEvent(context, replaced ? 'document.update' : 'document.create', document._id, document._type)),
  );
  await tx.changes.appendMany(firstDocuments.map((document) => documentChange(context, document._id, existing.get(document._id)?.rev ?? null, document._rev)));
}
