import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { S3Client } from '@aws-sdk/client-s3';

/** s3rver's fixed credentials: it refuses other access key ids (it does not verify SigV4 signatures). */
export const S3_ACCESS_KEY_ID = 'S3RVER';
export const S3_SECRET_ACCESS_KEY = 'S3RVER';

/** A real S3-compatible server (s3rver) on a random loopback port, storing under a temporary directory. */
export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** The environment that points the service at this server's bucket. */
  env(prefix?: string): Record<string, string>;
  /** A client for looking at the bucket from the test. */
  client(): S3Client;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'cms-assets'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  return {
    endpoint,
    bucket,
    env: (prefix = '') => ({
      BLOB_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY,
      S3_PREFIX: prefix,
    }),
    client() {
      const client = new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
