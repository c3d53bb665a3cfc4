import type { Readable } from 'node:stream';
import { badRequest } from '../errors.ts';

/**
 * Where asset bytes live. Keys are relative paths the service builds from validated ids
 * (`<project_id>/<dataset>/<asset_id>.<ext>`); an implementation must still refuse any key that
 * would leave its root (checkBlobKey).
 */
export interface BlobStore {
  /** Moves a finished local file (from stagingPath) into the store under `key`. */
  putFile(key: string, localPath: string): Promise<void>;
  /**
   * A local file holding the blob's bytes, to stream to a client or hand to sharp: the filesystem
   * store's own file, or a remote store's cached download. Undefined when there is no such blob.
   */
  localFile(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  /** A fresh temporary file path for an upload in progress, on the same filesystem as the store's files. */
  stagingPath(): Promise<string>;
  /** Releases connections (remote stores). */
  close?(): Promise<void>;
}

/**
 * Refuses keys that could leave a store's root or clash with its own folders: empty, absolute,
 * with NUL, backslashes, empty or `..` segments, or starting with a dot folder (`.staging`).
 */
export function checkBlobKey(key: string): string {
  const parts = key.split('/');
  if (
    key.length === 0 ||
    key.length > 1024 ||
    key.includes('\0') ||
    key.includes('\\') ||
    key.startsWith('/') ||
    parts.some((part) => part === '' || part === '.' || part === '..') ||
    parts[0]!.startsWith('.')
  ) {
    throw badRequest('invalid asset path');
  }
  return key;
}

export type { Readable };
