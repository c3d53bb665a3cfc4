import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { largeJpeg, solidPng } from '../helpers/images.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { loadConfig } from '../../src/config.ts';
import { S3BlobStore } from '../../src/assets/s3-blob-store.ts';
import { AppError } from '../../src/errors.ts';
import { postAsset } from '../helpers/assets.ts';

interface Upload {
  _id: string;
  path: string;
  url: string;
}

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

/**
 * BLOB_STORE=s3 against a real S3-compatible server (s3rver; it checks the access key id, though
 * not SigV4 signatures):
 * two instances on one database with separate data directories, as on two machines.
 */
describe(`assets in an S3-compatible bucket (${testEngine})`, () => {
  let s3: TestS3Server;
  let db: TestDatabase;
  let one: TestApp;
  let two: TestApp;
  let twoDataDir: string;
  let admin: string;
  let project: TestProject;

  beforeAll(async () => {
    s3 = await startS3Server();
    db = createTestDatabase();
    twoDataDir = mkdtempSync(join(tmpdir(), 'cms-test-two-'));
    one = await startTestApp(s3.env('cms/'), { db });
    two = await startTestApp({ ...s3.env('cms/'), DATA_DIR: twoDataDir }, { db });
    admin = await one.login();
    project = await createProject(one, admin);
  });
  afterAll(async () => {
    await two?.close({ keepDatabase: true });
    await one?.close();
    await s3?.close();
    rmSync(twoDataDir, { recursive: true, force: true });
  });

  async function upload(app: TestApp, bytes: Buffer, filename: string) {
    const response = await postAsset(app, admin, project.slug, bytes, filename);
    return { status: response.status, body: (await response.json()) as Upload };
  }

  async function fetchAsset(app: TestApp, url: string) {
    const response = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  const filesUnder = async (dir: string) =>
    (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])).filter((entry) => entry.isFile()).map((entry) => entry.name);

  it('stores the upload as an object under S3_PREFIX, byte for byte, and nothing under DATA_DIR/assets', async () => {
    const png = await solidPng(40, 20);
    const { status, body } = await upload(one, png, 'pixel.png');
    expect(status).toBe(201);
    const client = s3.client();
    const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `cms/${body.path}` }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(png)).toBe(true);
    expect(await filesUnder(join(db.dataDir, 'assets'))).toEqual([]);
    const original = await fetchAsset(one, body.url);
    expect(original.status).toBe(200);
    expect(original.headers.get('etag')).toBe(`"${sha1(png)}"`);
    expect(original.bytes.equals(png)).toBe(true);
  });

  it('serves and transforms on an instance that does not share the disk (downloaded once into its cache)', async () => {
    const jpeg = await largeJpeg(800, 600);
    const { body } = await upload(one, jpeg, 'photo.jpg');
    expect(await filesUnder(join(twoDataDir, 'blob-cache'))).not.toContain(`${body._id}.jpg`);
    const original = await fetchAsset(two, body.url);
    expect(original.status).toBe(200);
    expect(original.bytes.equals(jpeg)).toBe(true);
    expect(await filesUnder(join(twoDataDir, 'blob-cache'))).toContain(`${body._id}.jpg`);
    const small = await fetchAsset(two, `${body.url}?w=200&format=webp`);
    expect(small.status).toBe(200);
    expect(small.headers.get('content-type')).toBe('image/webp');
    expect(await sharp(small.bytes).metadata()).toMatchObject({ width: 200, height: 150, format: 'webp' });
    // Both instances compute the same variant, so a client's cached copy is valid on either.
    expect((await fetchAsset(one, `${body.url}?w=200&format=webp`)).headers.get('etag')).toBe(small.headers.get('etag'));
  });

  it('deletes the object and the cached copies: the asset is gone on every instance', async () => {
    const png = await solidPng(8, 8, { r: 1, g: 2, b: 3, alpha: 1 });
    const { body } = await upload(two, png, 'gone.png');
    expect((await fetchAsset(one, body.url)).status).toBe(200);
    const deleted = await fetch(`${one.url}/api/v1/assets/production/${body._id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin}`, 'x-project': project.slug },
    });
    expect(deleted.status).toBe(200);
    const client = s3.client();
    await expect(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `cms/${body.path}` }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    expect(await filesUnder(join(db.dataDir, 'blob-cache'))).not.toContain(`${body._id}.png`);
    expect((await fetchAsset(one, body.url)).status).toBe(404);
    expect((await fetchAsset(two, body.url)).status).toBe(404);
  });

  it('keeps every key under the prefix', async () => {
    const listed = await s3.client().send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    expect(listed.Contents?.length).toBeGreaterThan(0);
    for (const object of listed.Contents ?? []) expect(object.Key).toMatch(new RegExp(`^cms/${project.id}/production/`));
  });
});

describe('the S3 blob store on its own', () => {
  let s3: TestS3Server;
  let cacheRoot: string;
  beforeAll(async () => {
    s3 = await startS3Server('cms-unit');
    cacheRoot = mkdtempSync(join(tmpdir(), 'blob-cache-'));
  });
  afterAll(async () => {
    await s3?.close();
    rmSync(cacheRoot, { recursive: true, force: true });
  });

  const configOf = (env: Record<string, string>) => loadConfig({ DATA_DIR: cacheRoot, ...s3.env(), ...env }).s3!;

  it('refuses keys that leave its root before any request, and reports a missing object as no file', async () => {
    const store = await S3BlobStore.open(configOf({}), cacheRoot);
    try {
      for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '.staging/x', 'a\\..\\x', '']) {
        await expect(store.localFile(key)).rejects.toThrow(AppError);
        await expect(store.delete(key)).rejects.toThrow(AppError);
      }
      expect(await store.localFile('p/production/missing.png')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('stops the start with a clear message when the bucket is missing or the credentials are wrong', async () => {
    await expect(S3BlobStore.open(configOf({ S3_BUCKET: 'no-such-bucket' }), cacheRoot)).rejects.toThrow(/"no-such-bucket" is not usable/);
    await expect(S3BlobStore.open(configOf({ S3_ACCESS_KEY_ID: 'WRONG' }), cacheRoot)).rejects.toThrow(/not usable: access denied/);
  });
});
