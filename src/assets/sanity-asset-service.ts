import type { Readable } from 'node:stream';
import { badRequest, notFound } from '../errors.ts';
import type { ProjectRecord, Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import type { ProjectService } from '../projects/project-service.ts';
import { actorIdOf } from '../content/actor.ts';
import { applyMutation } from '../content/mutations/apply-mutation.ts';
import { runContentTransaction } from '../content/transactions.ts';
import type { AssetContent, AssetService } from './asset-service.ts';
import { sanityAssetDocument } from './sanity-asset-document.ts';
import { sanityImageTransform } from './sanity-image-params.ts';

export type SanityAssetKind = 'images' | 'files';

/** `<sha1>-<w>x<h>.<ext>` (images) or `<sha1>.<ext>` (files), as Sanity's asset URLs name them. */
const IMAGE_FILE = /^([0-9a-f]{40})-(\d+)x(\d+)\.([a-z0-9]{1,10})$/;
const PLAIN_FILE = /^([0-9a-f]{40})\.([a-z0-9]{1,10})$/;

/**
 * Assets the way Sanity's clients use them: uploads answered with a `sanity.imageAsset` /
 * `sanity.fileAsset` document (the same bytes uploaded again give the same document), and URLs
 * `/images/<project>/<dataset>/<sha1>-<w>x<h>.<ext>?w=...` as @sanity/image-url builds them,
 * served from the asset store with the access rules of GET /assets/:id.
 */
export class SanityAssetService {
  private readonly store: Store;
  private readonly assets: AssetService;
  private readonly projects: ProjectService;
  private readonly publicUrl: string;

  constructor(store: Store, assets: AssetService, projects: ProjectService, publicUrl = '') {
    this.store = store;
    this.assets = assets;
    this.projects = projects;
    this.publicUrl = publicUrl;
  }

  async upload(actor: Principal, project: ProjectRecord, dataset: string, kind: SanityAssetKind, stream: Readable, filename?: string) {
    requireProjectRole(actor, project, 'editor', { dataset });
    const asset = await this.assets.save(actor, project, dataset, { filename, stream }, { reuseSameContent: true });
    if (kind === 'images' && asset.type !== 'image') {
      throw badRequest('The upload is not an image this server can read; upload it to /assets/files/ instead');
    }
    const candidate = sanityAssetDocument(asset, filename ?? asset.filename, this.publicUrl);
    const scope = { projectId: project.id, dataset, actorId: actorIdOf(actor) };
    const { value } = await runContentTransaction(this.store, scope, async (changes) => {
      await changes.lock([candidate._id]);
      return applyMutation(changes, { kind: 'createIfNotExists', document: candidate });
    });
    return { document: value.document };
  }

  async content(actor: Principal, kind: SanityAssetKind, projectRef: string, dataset: string, file: string, query: Record<string, unknown>): Promise<AssetContent> {
    const project = await this.projects.visible(actor, projectRef);
    requireProjectRole(actor, project, 'viewer', { dataset });
    const match = kind === 'images' ? IMAGE_FILE.exec(file) : PLAIN_FILE.exec(file);
    if (!match) throw notFound(`No ${kind === 'images' ? 'image' : 'file'} named ${file}`);
    const asset = await this.store.assets.findBySha1(project.id, dataset, match[1]!);
    if (!asset || (kind === 'images') !== (asset.type === 'image')) throw notFound(`No ${kind === 'images' ? 'image' : 'file'} named ${file}`);
    return this.assets.serve(asset, kind === 'images' ? sanityImageTransform(query) : undefined);
  }
}
