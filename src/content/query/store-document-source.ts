import { PENDING, type DocumentSource } from '../../groq/index.ts';
import type { Store } from '../../store/index.ts';

/**
 * The documents of one dataset, from the Store, for the GROQ evaluator. The evaluator asks
 * synchronously; what is not loaded yet is answered PENDING and fetched in one batch by `load()`:
 * the whole dataset for `*` (read a page at a time), the ids asked for by `->` with one query.
 */
export class StoreDocumentSource implements DocumentSource {
  private readonly store: Store;
  private readonly projectId: string;
  private readonly dataset: string;
  private all: unknown[] | undefined;
  private allById: Map<string, unknown> | undefined;
  private wantAll = false;
  private readonly byId = new Map<string, unknown>();
  private readonly wanted = new Set<string>();

  constructor(store: Store, projectId: string, dataset: string) {
    this.store = store;
    this.projectId = projectId;
    this.dataset = dataset;
  }

  documents(): readonly unknown[] | typeof PENDING {
    if (this.all) return this.all;
    this.wantAll = true;
    return PENDING;
  }

  getDocument(id: string): unknown {
    if (this.allById) return this.allById.get(id) ?? null;
    if (this.byId.has(id)) return this.byId.get(id);
    this.wanted.add(id);
    return PENDING;
  }

  async load(): Promise<void> {
    if (this.wantAll && !this.all) {
      const all: unknown[] = [];
      const allById = new Map<string, unknown>();
      for await (const document of this.store.documents.scan(this.projectId, this.dataset)) {
        all.push(document);
        allById.set(document._id, document);
      }
      this.all = all;
      this.allById = allById;
    }
    if (this.wanted.size > 0 && !this.allById) {
      const ids = [...this.wanted];
      for (const id of ids) this.byId.set(id, null);
      for (const document of await this.store.documents.getMany(this.projectId, this.dataset, ids)) this.byId.set(document._id, document);
    }
    this.wanted.clear();
  }
}
