import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';
import { BlobCache } from './blob-cache.ts';
import { checkBlobKey, type BlobStore } from './blob-store.ts';

/**
 * Blobs as objects in an S3-compatible bucket, for instances that do not share a disk. Originals
 * are also kept in a bounded local cache (BlobCache), because responses and sharp read local
 * files: the instance that uploads keeps its copy, the others download an original on first use.
 * An object's content never changes (keys carry the asset id), so a cached copy is never stale.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly cache: BlobCache;

  constructor(client: S3Client, bucket: string, prefix: string, cache: BlobCache) {
    this.client = client;
    this.bucket = bucket;
    this.prefix = prefix;
    this.cache = cache;
  }

  /** Connects, checks that the bucket answers (a wrong name or credential stops the start), opens the cache. */
  static async open(config: S3Config, cacheRoot: string): Promise<S3BlobStore> {
    const client = createS3Client(config);
    try {
      await client.send(new HeadBucketCommand({ Bucket: config.bucket }));
    } catch (error) {
      client.destroy();
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const reason = status === 404 ? 'it does not exist' : status === 403 ? 'access denied' : (error as Error).message || (error as Error).name;
      throw new Error(`S3 bucket "${config.bucket}" is not usable: ${reason}`, { cause: error });
    }
    const cache = new BlobCache(cacheRoot, config.cacheMaxBytes);
    await cache.open();
    return new S3BlobStore(client, config.bucket, config.prefix, cache);
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const { size } = await stat(localPath);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: createReadStream(localPath), ContentLength: size }),
    );
    await this.cache.admit(key, localPath);
  }

  localFile(key: string): Promise<string | undefined> {
    return this.cache.get(key, (target) => this.download(key, target));
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    await this.cache.remove(key);
  }

  stagingPath(): Promise<string> {
    return this.cache.stagingPath();
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    return `${this.prefix}${checkBlobKey(key)}`;
  }

  private async download(key: string, target: string): Promise<boolean> {
    let body: unknown;
    try {
      ({ Body: body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if ((error as Error).name === 'NoSuchKey' || status === 404) return false;
      throw error;
    }
    if (!(body instanceof Readable)) throw new Error('S3 GetObject returned no readable body');
    await pipeline(body, createWriteStream(target));
    return true;
  }
}

export function createS3Client(config: S3Config): S3Client {
  return new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.credentials ? { credentials: { accessKeyId: config.credentials.accessKeyId, secretAccessKey: config.credentials.secretAccessKey } } : {}),
    // S3-compatible servers often lack the SDK's newer default integrity checksums (aws-chunked
    // uploads with trailing checksums get stored with their framing), so with an endpoint they are
    // used only where an operation requires them.
    ...(config.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });
}
