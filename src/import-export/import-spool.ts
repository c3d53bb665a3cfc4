import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../errors.ts';
import { splitLines, type LineSplitter, type NumberedLine } from './line-splitter.ts';
import { bodyTooLarge, NdjsonSplitter } from './ndjson-lines.ts';
import { isWhitespace, JsonArrayScanner } from './json-array-lines.ts';

/** Where import bodies are kept while they are imported. */
export function importSpoolDirectory(dataDir: string): string {
  return join(dataDir, 'tmp');
}

/** `ndjson`: NDJSON only; `json`: a JSON array when the first byte that is not whitespace is `[`, else NDJSON. */
export type ImportBodyFormat = 'ndjson' | 'json';

export interface SpoolOptions {
  /** Where the body is kept until the import has read it (created if missing). */
  directory: string;
  format: ImportBodyFormat;
  maxBytes: number;
  maxLineBytes: number;
}

export interface SpooledImport {
  /** The body's documents as numbered lines, read from the local file. */
  lines(): AsyncGenerator<NumberedLine>;
  /** Deletes the file; call it once the import is over, whatever its outcome. */
  remove(): Promise<void>;
}

/**
 * Receives a whole import body into a temporary file before any transaction opens, so a client
 * that sends slowly (or stops) holds a file, never the database's write lock. The body is split
 * as it arrives, so an over-long line or an oversized body is refused at once; the lines are
 * split again when read back from the file, where nothing waits on the network.
 */
export async function spoolImportBody(body: Readable, options: SpoolOptions): Promise<SpooledImport> {
  await mkdir(options.directory, { recursive: true });
  const path = join(options.directory, `import-${randomUUID()}.body`);
  const file = await open(path, 'wx');
  let splitter: LineSplitter | undefined = options.format === 'ndjson' ? new NdjsonSplitter(options.maxLineBytes) : undefined;
  let total = 0;
  try {
    for await (const chunk of received(body)) {
      total += chunk.length;
      if (total > options.maxBytes) throw bodyTooLarge(options.maxBytes);
      splitter ??= splitterFor(chunk, options.maxLineBytes);
      splitter?.push(chunk);
      await writeAll(file, chunk);
    }
    splitter?.end();
    await file.close();
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(path, { force: true });
    throw error;
  }
  const reading: LineSplitter = splitter instanceof JsonArrayScanner ? new JsonArrayScanner(options.maxLineBytes) : new NdjsonSplitter(options.maxLineBytes);
  return {
    lines: () => splitLines(createReadStream(path), reading),
    remove: () => rm(path, { force: true }),
  };
}

/** The splitter a `json` body needs, once a byte other than whitespace shows which form it has. */
function splitterFor(chunk: Buffer, maxLineBytes: number): LineSplitter | undefined {
  const first = chunk.find((byte) => !isWhitespace(byte));
  if (first === undefined) return undefined;
  return first === '['.charCodeAt(0) ? new JsonArrayScanner(maxLineBytes) : new NdjsonSplitter(maxLineBytes);
}

const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The body's chunks, without a UTF-8 byte order mark at its start (editors on Windows write one).
 * The request is not destroyed when the import stops reading early (a refused line), so the
 * refusal can still be sent; a body that breaks off is the client's failure (400).
 */
async function* received(body: Readable): AsyncGenerator<Buffer> {
  let first = true;
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      const start = first && chunk.subarray(0, 3).equals(BYTE_ORDER_MARK) ? 3 : 0;
      first = false;
      yield start === 0 ? chunk : chunk.subarray(start);
    }
  } catch {
    throw new AppError('BAD_REQUEST', 'The import body ended before it was complete (the client closed the connection)');
  }
}

async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  for (let written = 0; written < chunk.length; ) written += (await file.write(chunk, written)).bytesWritten;
}

/** Spooled bodies older than this are left over from a process that died mid-import. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Removes bodies that a killed process left behind. Only old ones: another instance sharing the
 * directory may be receiving one right now.
 */
export async function removeStaleSpools(directory: string, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    if (!/^import-[0-9a-f-]+\.body$/.test(name)) continue;
    const path = join(directory, name);
    const info = await stat(path).catch(() => undefined);
    if (info && now - info.mtimeMs > STALE_AFTER_MS) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}
