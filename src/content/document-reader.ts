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

  async counts(actor: Principal, project: ProjectRecord, dataset: string): Promise<{ counts: Record<string, number> }> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    return { counts: await this.store.documents.countPublishedByType(project.id, dataset) };
  }
}
