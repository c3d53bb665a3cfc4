import { notFound } from '../errors.ts';
import type { ProjectRecord, Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { localizerFor } from './localization.ts';

/** Reads of single documents and per-type counts. */
export class DocumentReader {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async get(actor: Principal, project: ProjectRecord, dataset: string, id: string, language?: string): Promise<unknown> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const localize = localizerFor(project.locales, language);
    const document = await this.store.documents.get(project.id, dataset, id);
    if (!document) throw notFound(`Document "${id}" not found`);
    return localize ? localize(document) : document;
  }

  /** Several documents at once, Sanity's way: the ones found, and the ids omitted because they do not exist. */
  async getMany(actor: Principal, project: ProjectRecord, dataset: string, ids: readonly string[], language?: string) {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const localize = localizerFor(project.locales, language);
    const found = new Map((await this.store.documents.getMany(project.id, dataset, ids)).map((document) => [document._id, document]));
    const documents = ids.flatMap((id) => {
      const document = found.get(id);
      return document ? [localize ? localize(document) : document] : [];
    });
    return { documents, omitted: ids.filter((id) => !found.has(id)).map((id) => ({ id, reason: 'existence' as const })) };
  }

  async counts(actor: Principal, project: ProjectRecord, dataset: string): Promise<{ counts: Record<string, number> }> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    return { counts: await this.store.documents.countPublishedByType(project.id, dataset) };
  }
}
