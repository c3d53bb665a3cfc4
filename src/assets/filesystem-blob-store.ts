import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import { badRequest } from '../errors.ts';
import { checkBlobKey, type BlobStore } from './blob-store.ts';

/** Blobs as files under `root` (DATA_DIR/assets by default). */
export class FilesystemBlobStore implements BlobStore {
  private readonly root: string;
  private readonly staging: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.staging = join(this.root, '.staging');
  }

  /** The absolute path of a key; refuses keys that would escape the root (`..`, absolute paths, NUL). */
  resolveKey(key: string): string {
    checkBlobKey(key);
    if (isAbsolute(key)) throw badRequest('invalid asset path');
    // The resolved path is checked too, whatever the platform's separators make of the key.
    const path = resolve(this.root, key);
    const inside = relative(this.root, path);
    if (inside.startsWith('..') || isAbsolute(inside) || inside.split(sep)[0] === '.staging') throw badRequest('invalid asset path');
    return path;
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const target = this.resolveKey(key);
    await mkdir(dirname(target), { recursive: true });
    await rename(localPath, target);
  }

  async localFile(key: string): Promise<string | undefined> {
    const path = this.resolveKey(key);
    try {
      return (await stat(path)).isFile() ? path : undefined;
    } catch {
      return undefined;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.resolveKey(key), { force: true });
  }

  async stagingPath(): Promise<string> {
    await mkdir(this.staging, { recursive: true });
    return join(this.staging, randomUUID());
  }
}
