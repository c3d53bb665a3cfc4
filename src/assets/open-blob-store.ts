import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { BlobStore } from './blob-store.ts';
import { FilesystemBlobStore } from './filesystem-blob-store.ts';

/**
 * The blob store BLOB_STORE names: files under DATA_DIR/assets (default), or an S3-compatible
 * bucket. The S3 client is loaded only for the bucket (it takes tens of MB of memory).
 */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  if (config.blobStore === 's3' && config.s3) {
    const { S3BlobStore } = await import('./s3-blob-store.ts');
    return S3BlobStore.open(config.s3, join(config.dataDir, 'blob-cache'));
  }
  return new FilesystemBlobStore(join(config.dataDir, 'assets'));
}
