import type { AssetEvent } from '../webhooks/events.ts';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { Transform as TransformStream, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { notFound } from '../errors.ts';
import type { AssetRecord, AssetType, ProjectRecord, Repositories, Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { actorIdOf } from '../content/actor.ts';
import type { BlobStore } from './blob-store.ts';
import type { ImageTransformer } from './image-transformer.ts';
import { inspectFile } from './inspect-file.ts';
import { normalizeTransform, type Transform, type TransformQuery } from './transform.ts';
import { newId } from '../new-id.ts';

export const ASSET_URL_PREFIX = '/api/v1/assets/';
export const ASSET_LIST_DEFAULT_LIMIT = 50;
export const ASSET_LIST_MAX_LIMIT = 100;

export interface UploadedAsset {
  _id: string;
  assetId: string;
  _type: AssetType;
  path: string;
  url: string;
  metadata?: Record<string, unknown>;
}

export interface AssetListItem {
  id: string;
  type: AssetType;
  filename: string | null;
  mime_type: string;
  size: number;
  url: string;
  metadata: Record<string, unknown>;
  created_at: string;
}

/** What to send for GET /assets/:id: a local file with its headers. */
export interface AssetContent {
  path: string;
  mimeType: string;
  etag: string;
  size: number;
  /** The original of a non-image (or SVG) is offered as a download, never rendered in our origin. */
  download: string | undefined;
}

function cleanFilename(filename: string | undefined): string | null {
  if (!filename) return null;
  // Keep the last path segment only, without control characters.
  const last = filename.split(/[\\/]/).pop() ?? '';
  const base = [...last].filter((char) => char.charCodeAt(0) > 0x1f && char.charCodeAt(0) !== 0x7f).join('').trim();
  return base.length === 0 ? null : base.slice(0, 255);
}

/** Passes bytes through while hashing them, so the upload is read once. */
function sha1Passthrough(hash: ReturnType<typeof createHash>): TransformStream {
  return new TransformStream({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

/** Uploads, serving with transforms, listing and deletion of assets. */
export class AssetService {
  private readonly store: Store;
  private readonly blobs: BlobStore;
  private readonly transformer: ImageTransformer;
  private readonly now: () => Date;

  constructor(store: Store, blobs: BlobStore, transformer: ImageTransformer, now: () => Date = () => new Date()) {
    this.store = store;
    this.blobs = blobs;
    this.transformer = transformer;
    this.now = now;
  }

  /**
   * Streams the upload to a staging file (the size limit is enforced by the stream's source), decides
   * its type from the bytes, moves it into the blob store and records it with its asset.upload event
   * in one transaction. Whatever fails, nothing is left behind.
   */
  async upload(actor: Principal, project: ProjectRecord, dataset: string, file: { filename?: string; stream: Readable }): Promise<UploadedAsset> {
    const asset = await this.save(actor, project, dataset, file);
    return {
      _id: asset.id,
      assetId: asset.id,
      _type: asset.type,
      path: asset.path,
      url: `${ASSET_URL_PREFIX}${asset.id}`,
      ...(asset.type === 'image' ? { metadata: asset.metadata } : {}),
    };
  }

  /**
   * The asset of a dataset with this file's content, uploading the file only if no asset has the
   * same bytes (SHA-1) yet: imports of Sanity archives call it for every referenced file.
   */
  async ingestFile(actor: Principal, project: ProjectRecord, dataset: string, path: string, filename: string): Promise<AssetRecord> {
    return this.save(actor, project, dataset, { filename, stream: createReadStream(path) }, { reuseSameContent: true });
  }

  /**
   * Stores a file as an asset (with its asset.upload event). With `reuseSameContent`, an asset of the
   * dataset with the same bytes (SHA-1) is returned instead and the new copy dropped.
   */
  async save(
    actor: Principal,
    project: ProjectRecord,
    dataset: string,
    file: { filename?: string; stream: Readable },
    options: { reuseSameContent?: boolean } = {},
  ): Promise<AssetRecord> {
    requireProjectRole(actor, project, 'editor', { dataset });
    const staging = await this.blobs.stagingPath();
    let stored: string | undefined;
    try {
      const hash = createHash('sha1');
      await pipeline(file.stream, sha1Passthrough(hash), createWriteStream(staging));
      const sha1 = hash.digest('hex');
      if (options.reuseSameContent) {
        const existing = await this.store.assets.findBySha1(project.id, dataset, sha1);
        if (existing) return existing;
      }
      const filename = cleanFilename(file.filename);
      const inspection = await inspectFile(staging, filename);
      const { size } = await stat(staging);
      const id = randomUUID();
      const path = `${project.id}/${dataset}/${id}.${inspection.extension}`;
      const asset: AssetRecord = {
        id,
        projectId: project.id,
        dataset,
        type: inspection.type,
        filename,
        mimeType: inspection.mimeType,
        extension: inspection.extension,
        size,
        sha1,
        path,
        metadata: inspection.metadata,
        createdBy: actorIdOf(actor),
        createdAt: this.now().toISOString(),
      };
      await this.blobs.putFile(path, staging);
      stored = path;
      await this.store.transaction(async (tx) => {
        await tx.assets.insert(asset);
        await this.emit(tx, 'asset.upload', asset);
      });
      stored = undefined;
      return asset;
    } finally {
      await rm(staging, { force: true });
      if (stored) await this.blobs.delete(stored);
    }
  }

  /** The original, or a transformed variant for images when transform parameters are given. */
  async content(actor: Principal, id: string, query: TransformQuery): Promise<AssetContent> {
    const asset = await this.store.assets.findById(id);
    if (!asset) throw notFound(`Asset "${id}" not found`);
    requireProjectRole(actor, { id: asset.projectId }, 'viewer', { dataset: asset.dataset });
    return this.serve(asset, asset.type === 'image' ? normalizeTransform(query) : undefined);
  }

  /** What to send for an asset the caller may read: the original, or the transformed variant of an image. */
  async serve(asset: AssetRecord, transform: Transform | undefined): Promise<AssetContent> {
    const original = await this.blobs.localFile(asset.path);
    if (!original) throw notFound(`Asset "${asset.id}" has no stored file`);
    if (!transform || asset.type !== 'image') {
      const activeContent = asset.type !== 'image' || asset.metadata.format === 'svg';
      return {
        path: original,
        mimeType: asset.mimeType,
        etag: `"${asset.sha1}"`,
        size: asset.size,
        download: activeContent ? (asset.filename ?? `${asset.id}.${asset.extension}`) : undefined,
      };
    }
    const variant = await this.transformer.variant(asset, original, transform);
    return { ...variant, size: (await stat(variant.path)).size, download: undefined };
  }

  async list(actor: Principal, project: ProjectRecord, dataset: string, type: AssetType | undefined, limit: number, offset: number) {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const [assets, total] = await Promise.all([
      this.store.assets.list(project.id, dataset, type, limit, offset),
      this.store.assets.count(project.id, dataset, type),
    ]);
    const items: AssetListItem[] = assets.map((asset) => ({
      id: asset.id,
      type: asset.type,
      filename: asset.filename,
      mime_type: asset.mimeType,
      size: asset.size,
      url: `${ASSET_URL_PREFIX}${asset.id}`,
      metadata: asset.metadata,
      created_at: asset.createdAt,
    }));
    return { items, total };
  }

  /** Removes the record (with its asset.delete event), then the file and its cached variants. */
  async delete(actor: Principal, project: ProjectRecord, dataset: string, id: string): Promise<{ deleted: true; id: string }> {
    requireProjectRole(actor, project, 'editor', { dataset });
    const asset = await this.store.assets.findById(id);
    if (!asset || asset.projectId !== project.id || asset.dataset !== dataset) throw notFound(`Asset "${id}" not found`);
    await this.store.transaction(async (tx) => {
      if (!(await tx.assets.delete(id))) throw notFound(`Asset "${id}" not found`);
      await this.emit(tx, 'asset.delete', asset);
    });
    await this.blobs.delete(asset.path);
    await this.transformer.forget(asset.id);
    return { deleted: true, id };
  }

  private async emit(tx: Repositories, event: AssetEvent, asset: AssetRecord): Promise<void> {
    const timestamp = this.now().toISOString();
    await tx.outbox.append({
      projectId: asset.projectId,
      dataset: asset.dataset,
      event,
      documentId: asset.id,
      documentType: asset.type,
      transactionId: newId(),
      payload: { event, dataset: asset.dataset, assetId: asset.id, assetType: asset.type, timestamp },
      createdAt: timestamp,
    });
  }
}
