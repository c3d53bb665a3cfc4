import type { Readable } from 'node:stream';

/**
 * Where asset bytes live. Keys are relative paths the service builds from validated ids
 * (`<project_id>/<dataset>/<asset_id>.<ext>`); an implementation must still refuse any key that
 * would leave its root.
 */
export interface BlobStore {
  /** Moves a finished local file into the store under `key`. */
  putFile(key: string, localPath: string): Promise<void>;
  /** A local path to read the blob from (the filesystem store's own file). */
  localPath(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  /** A fresh temporary file path for an upload in progress, on the same filesystem as the store. */
  stagingPath(): Promise<string>;
}

export type { Readable };
