import type { ProjectRecord, Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';

export interface ExportOptions {
  /** Only these document types. */
  types?: readonly string[];
  /** false leaves drafts out (they are included by default). */
  drafts?: boolean;
}

/** GET /data/export: a dataset's documents as NDJSON, streamed from the database a page at a time. */
export class ExportService {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** Checks access, then yields one line per document (JSON + newline) as the consumer reads. */
  open(actor: Principal, project: ProjectRecord, dataset: string, options: ExportOptions = {}): AsyncGenerator<string> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    return this.lines(project.id, dataset, options);
  }

  private async *lines(projectId: string, dataset: string, options: ExportOptions): AsyncGenerator<string> {
    // Lines are batched into chunks of about 64 KiB: fewer, larger writes to the socket.
    let chunk = '';
    for await (const text of this.store.documents.scanText(projectId, dataset, options)) {
      chunk += `${text}\n`;
      if (chunk.length >= 65_536) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk.length > 0) yield chunk;
  }
}
