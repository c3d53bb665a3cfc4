import { notFound } from '../errors.ts';
import type { ProjectRecord, Store, StoredDocument } from '../store/index.ts';
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

  /**
   * Several documents at once, Sanity's way, as the JSON text of `{documents, omitted}`: the ones
   * found, in the order asked, and the ids omitted because they do not exist. Written a page of
   * documents at a time, as they are stored: a few hundred ids of large documents were all held,
   * parsed, then serialized whole.
   */
  async getMany(actor: Principal, project: ProjectRecord, dataset: string, ids: readonly string[], language?: string): Promise<AsyncGenerator<string>> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const localize = localizerFor(project.locales, language);
    const { missing, texts } = await this.store.documents.textsInOrder(project.id, dataset, ids);
    return (async function* () {
      yield '{"documents":[';
      const found = new Set<string>();
      for await (const [id, text] of texts) {
        yield `${found.size === 0 ? '' : ','}${localize ? JSON.stringify(localize(JSON.parse(text) as StoredDocument)) : text}`;
        found.add(id);
      }
      // A document deleted since its length was read is omitted too.
      const gone = new Set(missing);
      const omitted = ids.filter((id) => gone.has(id) || !found.has(id)).map((id) => ({ id, reason: 'existence' }));
      yield `],"omitted":${JSON.stringify(omitted)}}`;
    })();
  }

  async counts(actor: Principal, project: ProjectRecord, dataset: string): Promise<{ counts: Record<string, number> }> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    return { counts: await this.store.documents.countPublishedByType(project.id, dataset) };
  }
}
