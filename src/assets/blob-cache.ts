import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { checkBlobKey } from './blob-store.ts';

/**
 * Blob files on local disk, bounded in bytes, least recently used out first. A remote blob store
 * keeps its originals here, so each instance downloads an original once and then streams it and
 * hands it to sharp from disk. Files are written aside (under `.staging`) and renamed in, so a
 * reader never sees half a file; concurrent requests for one missing key share one download.
 */
export class BlobCache {
  private readonly root: string;
  private readonly staging: string;
  private readonly maxBytes: number;
  /** key -> size, oldest use first (a Map keeps insertion order; a use moves the key to the end). */
  private readonly entries = new Map<string, number>();
  private readonly filling = new Map<string, Promise<string | undefined>>();
  private total = 0;

  constructor(root: string, maxBytes: number) {
    this.root = resolve(root);
    this.staging = join(this.root, '.staging');
    this.maxBytes = maxBytes;
  }

  /** Bytes held now. */
  get size(): number {
    return this.total;
  }

  /** Indexes the files an earlier run left (oldest first), drops unfinished ones, trims to the limit. */
  async open(): Promise<void> {
    await rm(this.staging, { recursive: true, force: true });
    await mkdir(this.staging, { recursive: true });
    const found: { key: string; size: number; mtime: number }[] = [];
    for (const entry of await readdir(this.root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const key = relative(this.root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (key.startsWith('.')) continue;
      const info = await stat(join(entry.parentPath, entry.name));
      found.push({ key, size: info.size, mtime: info.mtimeMs });
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const { key, size } of found) this.remember(key, size);
    await this.evict(undefined);
  }

  /** The local path a key is cached at (refusing keys that would leave the cache's root). */
  pathOf(key: string): string {
    const path = resolve(this.root, checkBlobKey(key));
    if (!path.startsWith(this.root + sep)) throw new Error(`blob key outside the cache: ${key}`);
    return path;
  }

  /**
   * The cached file of `key`. When it is not cached, `fetch(target)` writes it to `target` and
   * resolves true, or resolves false when the blob does not exist (then undefined is returned).
   */
  async get(key: string, fetch: (target: string) => Promise<boolean>): Promise<string | undefined> {
    const path = this.pathOf(key);
    if (this.entries.has(key)) {
      try {
        await stat(path);
        this.remember(key, this.entries.get(key)!);
        return path;
      } catch {
        this.forget(key); // removed behind our back: fetch it again
      }
    }
    let pending = this.filling.get(key);
    if (!pending) {
      pending = this.fill(key, path, fetch).finally(() => this.filling.delete(key));
      this.filling.set(key, pending);
    }
    return pending;
  }

  /** Takes a finished local file in as the cached copy of `key` (moved, not copied). */
  async admit(key: string, localPath: string): Promise<void> {
    const path = this.pathOf(key);
    const { size } = await stat(localPath);
    await mkdir(dirname(path), { recursive: true });
    await rename(localPath, path);
    this.remember(key, size);
    await this.evict(key);
  }

  async remove(key: string): Promise<void> {
    const path = this.pathOf(key);
    this.forget(key);
    await rm(path, { force: true });
  }

  /** A fresh temporary path on the cache's filesystem (for uploads and downloads in progress). */
  async stagingPath(): Promise<string> {
    await mkdir(this.staging, { recursive: true });
    return join(this.staging, randomUUID());
  }

  private async fill(key: string, path: string, fetch: (target: string) => Promise<boolean>): Promise<string | undefined> {
    const temporary = await this.stagingPath();
    try {
      if (!(await fetch(temporary))) return undefined;
      await this.admit(key, temporary);
      return path;
    } finally {
      await rm(temporary, { force: true });
    }
  }

  private remember(key: string, size: number): void {
    this.forget(key);
    this.entries.set(key, size);
    this.total += size;
  }

  private forget(key: string): void {
    const size = this.entries.get(key);
    if (size === undefined) return;
    this.entries.delete(key);
    this.total -= size;
  }

  /**
   * Removes least recently used files until the cache fits, never `keep` (the file just asked for,
   * which is served even when it alone exceeds the limit). A file being streamed when it is removed
   * stays readable through its open descriptor.
   */
  private async evict(keep: string | undefined): Promise<void> {
    for (const [key] of this.entries) {
      if (this.total <= this.maxBytes) return;
      if (key === keep || this.filling.has(key)) continue; // just asked for, or being handed out
      this.forget(key);
      await rm(this.pathOf(key), { force: true });
    }
  }
}
