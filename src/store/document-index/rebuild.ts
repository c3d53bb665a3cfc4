import { binaryJsonColumn, jsonColumn, type Database } from '../sql.ts';
import type { StoredDocument } from '../records.ts';
import { DocumentIndexWriter } from './index-writer.ts';
import { sqlDialect } from '../dialects/dialect.ts';
import { leadingWithin, PAGE_TEXT_BYTES } from '../stored-size-pages.ts';

/**
 * The version of what the index rows hold (entries.ts, values.ts). Changing either means bumping
 * it: the next start rebuilds the rows from the documents, as it does after migration 006 for the
 * documents written before the index existed.
 */
export const DOCUMENT_INDEX_VERSION = '1';
const PAGE = 500;

/**
 * Rebuilds the document index when its rows follow another version, in one transaction (readers
 * see the old rows until it commits). Several instances starting at once rebuild it once.
 */
export async function rebuildDocumentIndexIfStale(db: Database): Promise<boolean> {
  const versionSql = "SELECT value FROM document_index_state WHERE name = 'version'";
  const state = await db.get<{ value: string }>(versionSql);
  if (state?.value === DOCUMENT_INDEX_VERSION) return false;
  return db.transaction(async (tx) => {
    await tx.lock(['document-index-rebuild']);
    if ((await tx.get<{ value: string }>(`${versionSql}${tx.lockClause}`))?.value === DOCUMENT_INDEX_VERSION) return false;
    for (const table of ['document_values', 'document_entries', 'document_references', 'document_shapes']) await tx.run(`DELETE FROM ${table}`);
    const writer = new DocumentIndexWriter(tx);
    const dialect = sqlDialect(tx.dialect);
    let after = ['', '', ''];
    for (;;) {
      // A page's extent from the documents' stored sizes, then their contents (stored-size-pages.ts):
      // the page is parsed at once, so by what they take parsed.
      const sizes = await tx.all<{ project_id: string; dataset: string; id: string; bytes: number }>(
        `SELECT project_id, dataset, id, ${dialect.documentParsedBytes} AS bytes FROM documents WHERE (project_id, dataset, id) > (?, ?, ?)
         ORDER BY project_id, dataset, id LIMIT ${PAGE}`,
        after,
      );
      const kept = leadingWithin(sizes, PAGE_TEXT_BYTES);
      const last = sizes[kept - 1];
      const rows = last
        ? await tx.all<{ project_id: string; dataset: string; id: string; content: unknown }>(
            `SELECT project_id, dataset, id, ${binaryJsonColumn(tx.dialect, 'content')} AS content FROM documents
             WHERE (project_id, dataset, id) > (?, ?, ?) AND (project_id, dataset, id) <= (?, ?, ?) ORDER BY project_id, dataset, id`,
            [...after, last.project_id, last.dataset, last.id],
          )
        : [];
      for (let start = 0; start < rows.length; ) {
        const { project_id: projectId, dataset } = rows[start]!;
        let end = start;
        while (end < rows.length && rows[end]!.project_id === projectId && rows[end]!.dataset === dataset) end++;
        // Nothing reads the index meanwhile: the value and reference rows are written at the end, sorted.
        await writer.replace(projectId, dataset, rows.slice(start, end).map((row) => jsonColumn<StoredDocument>(row.content)), { deferExpansion: true });
        start = end;
      }
      if (!last || (kept === sizes.length && sizes.length < PAGE)) break;
      after = [last.project_id, last.dataset, last.id];
    }
    await writer.completeDeferred();
    await tx.run("UPDATE document_index_state SET value = ? WHERE name = 'version'", [DOCUMENT_INDEX_VERSION]);
    return true;
  });
}
