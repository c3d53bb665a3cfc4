import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import * as tar from 'tar';
import type { Config } from '../config.ts';
import { closeServices, createServices } from '../composition.ts';
import { CLI_PRINCIPAL } from '../access/system-principal.ts';
import { resolveDataProject } from '../projects/data-project-resolver.ts';
import { sanityArchivePath } from '../assets/sanity-asset-document.ts';
import { toSanityAssets } from '../import-export/sanity-asset-references.ts';
import type { JsonObject } from '../store/index.ts';
import { progressBar } from './progress.ts';

export interface ExportOptions {
  dataset: string;
  project?: string;
  types?: string[];
  drafts?: boolean;
  /** A .tar.gz path writes a Sanity-style archive with the asset files; otherwise NDJSON. */
  out?: string;
}

const ASSET_TYPES = new Set(['sanity.imageAsset', 'sanity.fileAsset']);

async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/**
 * `cms export --dataset D`: NDJSON on standard output (or `--out file.ndjson`), or with
 * `--out file.tar.gz` an archive shaped like `sanity dataset export`'s: data.ndjson with asset
 * references written as `_sanityAsset`, assets.json, and the files under images/ and files/.
 */
export async function runExport(config: Config, options: ExportOptions, stdout: Writable = process.stdout): Promise<void> {
  const services = await createServices(config);
  try {
    const project = await resolveDataProject(services.projects, CLI_PRINCIPAL, options.dataset, options.project);
    const bar = progressBar('documents', await services.store.documents.count(project.id, options.dataset), 'documents');
    const filter = { types: options.types, drafts: options.drafts };
    if (!options.out || !/\.(tar\.gz|tgz)$/i.test(options.out)) {
      const target = options.out ? createWriteStream(options.out) : stdout;
      let count = 0;
      for await (const text of services.store.documents.scanText(project.id, options.dataset, filter)) {
        await write(target, `${text}\n`);
        bar.update(++count);
      }
      bar.stop();
      if (options.out) {
        target.end();
        await once(target, 'finish');
      }
      return;
    }

    const root = await mkdtemp(join(tmpdir(), 'cms-export-'));
    const folder = join(root, basename(options.out).replace(/\.(tar\.gz|tgz)$/i, ''));
    try {
      await mkdir(join(folder, 'images'), { recursive: true });
      await mkdir(join(folder, 'files'), { recursive: true });
      // Pass 1: the asset documents, which go to assets.json and the file folders, not data.ndjson.
      const archivePaths = new Map<string, string>();
      const assetsJson: Record<string, JsonObject> = {};
      for await (const text of services.store.documents.scanText(project.id, options.dataset, { types: [...ASSET_TYPES] })) {
        const document = JSON.parse(text) as JsonObject & { _id: string; sha1hash?: string };
        const asset = document.sha1hash ? await services.store.assets.findBySha1(project.id, options.dataset, document.sha1hash) : undefined;
        const file = asset && (await services.blobs.localFile(asset.path));
        if (!asset || !file) continue;
        const path = sanityArchivePath(asset);
        await copyFile(file, join(folder, path));
        archivePaths.set(document._id, path);
        assetsJson[document._id] = { originalFilename: document.originalFilename ?? null, mimeType: document.mimeType ?? null, size: document.size ?? null };
      }
      // Pass 2: every other document, its asset references rewritten to the archive's files.
      const data = createWriteStream(join(folder, 'data.ndjson'));
      let count = 0;
      for await (const text of services.store.documents.scanText(project.id, options.dataset, filter)) {
        const document = JSON.parse(text) as JsonObject & { _type: string };
        bar.update(++count);
        if (ASSET_TYPES.has(document._type) && archivePaths.has(document._id as string)) continue;
        await write(data, `${JSON.stringify(toSanityAssets(document, (id) => archivePaths.get(id)))}\n`);
      }
      data.end();
      await once(data, 'finish');
      await writeFile(join(folder, 'assets.json'), JSON.stringify(assetsJson, null, 2));
      bar.stop();
      await tar.c({ gzip: true, file: options.out, cwd: root }, [basename(folder)]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  } finally {
    await closeServices(services);
  }
}
