import { createReadStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import * as tar from 'tar';
import type { Config } from '../config.ts';
import { closeServices, createServices } from '../composition.ts';
import { CLI_PRINCIPAL } from '../access/system-principal.ts';
import { resolveDataProject } from '../projects/data-project-resolver.ts';
import { ndjsonLines, type NumberedLine } from '../import-export/ndjson-lines.ts';
import { collectSanityAssets, parseSanityAssetReference, rewriteSanityAssets } from '../import-export/sanity-asset-references.ts';
import { sanityAssetDocument } from '../assets/sanity-asset-document.ts';
import type { Services } from '../services.ts';
import type { ProjectRecord } from '../store/index.ts';
import { progressBar } from './progress.ts';

export interface ImportOptions {
  dataset: string;
  project?: string;
  replace?: boolean;
}

const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The data.ndjson of an extracted `sanity dataset export` archive: at the top or one folder down. */
function findDataFile(root: string): string {
  if (existsSync(join(root, 'data.ndjson'))) return join(root, 'data.ndjson');
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory() && existsSync(join(root, entry.name, 'data.ndjson'))) return join(root, entry.name, 'data.ndjson');
  }
  throw new Error('the archive has no data.ndjson');
}

/** Lines of a file, counting bytes read for the progress bar. */
function fileLines(path: string, onBytes: (bytes: number) => void, limit: number): AsyncGenerator<NumberedLine> {
  let read = 0;
  const counted = createReadStream(path).pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        read += chunk.length;
        onBytes(read);
        done(null, chunk);
      },
    }),
  );
  return ndjsonLines(counted, limit, MAX_LINE_BYTES);
}

/**
 * Uploads every file the documents reference with `_sanityAsset` (once each; files already stored
 * with the same bytes are reused) and returns, per reference, the id of its asset document, with
 * the asset documents to import.
 */
async function ingestAssets(services: Services, project: ProjectRecord, dataset: string, dataFile: string, out: (line: string) => void) {
  const references = new Set<string>();
  for await (const { text } of fileLines(dataFile, () => undefined, services.config.importBodyLimitBytes)) {
    if (text.includes('_sanityAsset')) {
      try {
        collectSanityAssets(JSON.parse(text), references);
      } catch {
        // A malformed line is reported by the import itself.
      }
    }
  }
  const folder = dirname(dataFile);
  const names = readAssetNames(folder);
  const resolved = new Map<string, string>();
  const documents = new Map<string, Record<string, unknown>>();
  const bar = progressBar('assets   ', references.size, 'files');
  let done = 0;
  for (const reference of references) {
    const local = parseSanityAssetReference(reference);
    const path = local && join(folder, local.path);
    if (!local || !path || !existsSync(path)) {
      out(`warning: ${reference} is not a file in the archive; left as it is`);
      continue;
    }
    const asset = await services.assets.ingestFile(CLI_PRINCIPAL, project, dataset, path, names.get(local.path) ?? local.path.split('/').pop()!);
    const document = sanityAssetDocument(asset, names.get(local.path) ?? asset.filename, services.config.publicUrl ?? '');
    resolved.set(reference, document._id);
    documents.set(document._id, document);
    bar.update(++done);
  }
  bar.stop();
  return { resolved, documents: [...documents.values()] };
}

/** assets.json of a Sanity archive names the original files: `{ "image-<sha1>-...": {originalFilename} }`. */
function readAssetNames(folder: string): Map<string, string> {
  const names = new Map<string, string>();
  const file = join(folder, 'assets.json');
  if (!existsSync(file)) return names;
  try {
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { originalFilename?: string; path?: string }>;
    for (const [id, entry] of Object.entries(entries)) {
      const match = /^(image|file)-([0-9a-f]+)(?:-(\d+x\d+))?-(\w+)$/.exec(id);
      if (!match || !entry.originalFilename) continue;
      const path = match[1] === 'image' ? `images/${match[2]}-${match[3]}.${match[4]}` : `files/${match[2]}.${match[4]}`;
      names.set(path, entry.originalFilename);
    }
  } catch {
    // assets.json only adds file names; without it the archive still imports.
  }
  return names;
}

/** `cms import FILE --dataset D`: an NDJSON file or a `sanity dataset export` .tar.gz archive. */
export async function runImport(config: Config, file: string, options: ImportOptions, out: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<void> {
  if (!existsSync(file)) throw new Error(`no such file: ${file}`);
  const services = await createServices(config);
  let extracted: string | undefined;
  try {
    const project = await resolveDataProject(services.projects, CLI_PRINCIPAL, options.dataset, options.project);
    let dataFile = file;
    if (/\.(tar\.gz|tgz)$/i.test(file)) {
      extracted = mkdtempSync(join(tmpdir(), 'cms-import-'));
      await tar.x({ file, cwd: extracted, strict: true });
      dataFile = findDataFile(extracted);
    }
    const assets = await ingestAssets(services, project, options.dataset, dataFile, out);
    const size = statSync(dataFile).size;
    const bar = progressBar('documents', size, 'bytes');
    async function* lines(): AsyncGenerator<NumberedLine> {
      // Asset documents first, so references to them resolve in the same transaction.
      for (const document of assets.documents) yield { line: 0, text: JSON.stringify(document) };
      for await (const entry of fileLines(dataFile, (bytes) => bar.update(bytes), services.config.importBodyLimitBytes)) {
        if (assets.resolved.size === 0 || !entry.text.includes('_sanityAsset')) {
          yield entry;
          continue;
        }
        let document: unknown;
        try {
          document = JSON.parse(entry.text);
        } catch {
          yield entry;
          continue;
        }
        yield { line: entry.line, text: JSON.stringify(rewriteSanityAssets(document, (reference) => assets.resolved.get(reference))) };
      }
    }
    const result = await services.importer.import(CLI_PRINCIPAL, project, options.dataset, lines(), options.replace === true);
    bar.stop();
    out(
      `Imported into ${project.slug}/${options.dataset}: ${result.total} documents read, ${result.created} created, ` +
        `${result.replaced} replaced, ${result.skipped} skipped, ${result.errors.length} errors`,
    );
    for (const error of result.errors) out(`  line ${error.line}: ${error.error}`);
    if (result.errors.length > 0) process.exitCode = 1;
  } finally {
    if (extracted) rmSync(extracted, { recursive: true, force: true });
    await closeServices(services);
  }
}
