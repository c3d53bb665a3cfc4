import { beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { outboxEvents } from '../helpers/content.ts';
import { SVG_WITH_SCRIPT, rotatedJpeg, solidPng, stripedWebp } from '../helpers/images.ts';
import { testEngine } from '../helpers/engine.ts';

interface Upload {
  _id: string;
  assetId: string;
  _type: string;
  path: string;
  url: string;
  metadata?: { width: number; height: number; format: string; hasAlpha: boolean; palette: { dominant: string; vibrant: string } };
}

describe(`assets (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
  });

  async function upload(bytes: Buffer, filename: string, options: { token?: string; field?: string; dataset?: string; type?: string } = {}) {
    const form = new FormData();
    form.append(options.field ?? 'file', new Blob([bytes], { type: options.type ?? 'application/octet-stream' }), filename);
    const response = await fetch(`${app.url}/api/v1/assets/${options.dataset ?? 'production'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token ?? app.admin}`, 'x-project': project.slug },
      body: form,
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Upload };
  }

  async function fetchAsset(url: string, options: { token?: string; headers?: Record<string, string> } = {}) {
    const response = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${options.token ?? app.admin}`, ...options.headers } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  const filesUnder = async (dir: string): Promise<string[]> => {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  };

  describe('upload', () => {
    it('stores a PNG with its metadata, path and url', async () => {
      const png = await solidPng(64, 32);
      const { status, body } = await upload(png, 'pixel.png');
      expect(status).toBe(201);
      expect(body._id).toBe(body.assetId);
      expect(body).toMatchObject({
        _type: 'image',
        path: `${project.id}/production/${body.assetId}.png`,
        url: `/api/v1/assets/${body.assetId}`,
        metadata: { width: 64, height: 32, format: 'png', hasAlpha: true },
      });
      expect(body.metadata!.palette.dominant).toMatch(/^#[0-9a-f]{6}$/);
      const original = await fetchAsset(body.url);
      expect(original.status).toBe(200);
      expect(original.headers.get('content-type')).toBe('image/png');
      expect(original.bytes.equals(png)).toBe(true);
    });

    it('reports the displayed size of a JPEG with EXIF orientation', async () => {
      const { body } = await upload(await rotatedJpeg(), 'turned.jpg');
      expect(body.metadata).toMatchObject({ width: 200, height: 300, format: 'jpeg', hasAlpha: false });
      const turned = await fetchAsset(`${body.url}?w=100&format=png`);
      expect(await sharp(turned.bytes).metadata()).toMatchObject({ width: 100, height: 150 });
    });

    it('finds the dominant and the vibrant colour of a WebP', async () => {
      const { body } = await upload(await stripedWebp(), 'stripes.webp');
      expect(body.metadata).toMatchObject({ width: 120, height: 80, format: 'webp' });
      expect(body.metadata!.palette).toEqual({ dominant: '#808080', vibrant: '#f07814' });
    });

    it('decides the type from the bytes, not the name or Content-Type', async () => {
      const text = await upload(Buffer.from('just some text, not an image'), 'fake.png', { type: 'image/png' });
      expect(text.status).toBe(201);
      expect(text.body._type).toBe('file');
      expect(text.body.metadata).toBeUndefined();
      expect(text.body.path.endsWith('.png')).toBe(true);
      const png = await upload(await solidPng(4, 4), 'document.pdf', { type: 'application/pdf' });
      expect(png.body).toMatchObject({ _type: 'image', metadata: { format: 'png' } });
      expect(png.body.path.endsWith('.png')).toBe(true);
    });

    it('serves non-images and SVG as downloads that cannot run script in our origin', async () => {
      const pdf = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64, 32)]), 'report.pdf');
      const served = await fetchAsset(pdf.body.url);
      expect(served.headers.get('content-type')).toBe('application/pdf');
      expect(served.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''report.pdf");
      expect(served.headers.get('content-security-policy')).toContain('sandbox');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      const svg = await upload(SVG_WITH_SCRIPT, 'evil.svg', { type: 'text/html' });
      expect(svg.body._type).toBe('image');
      const original = await fetchAsset(svg.body.url);
      expect(original.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(original.headers.get('content-security-policy')).toContain("default-src 'none'");
      const rasterized = await fetchAsset(`${svg.body.url}?w=10`);
      expect(rasterized.headers.get('content-type')).toBe('image/png');
    });

    it('emits asset.upload with the asset fields', async () => {
      const { body } = await upload(await solidPng(2, 2), 'e.png');
      const event = (await outboxEvents(app)).find((e) => e.documentId === body.assetId);
      expect(event?.payload).toMatchObject({ event: 'asset.upload', dataset: 'production', assetId: body.assetId, assetType: 'image' });
    });

    it('answers 400 without a file or with another field, 415 for a non-multipart body', async () => {
      const empty = await fetch(`${app.url}/api/v1/assets/production`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.admin}`, 'x-project': project.slug },
        body: new FormData(),
      });
      expect(empty.status).toBe(400);
      expectErrorBody({ status: empty.status, headers: empty.headers, body: await empty.json() }, 400);
      expect((await upload(await solidPng(2, 2), 'x.png', { field: 'image' })).status).toBe(400);
      expectErrorBody(await app.request('POST', '/api/v1/assets/production', { token: app.admin, headers: { 'x-project': project.slug }, body: {} }), 415);
    });

    it('refuses a file over 50 MB while streaming, with 413, leaving nothing behind', async () => {
      const before = await filesUnder(app.db.dataDir);
      const response = await upload(Buffer.alloc(50 * 1024 * 1024 + 1, 7), 'big.bin');
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large', message: expect.stringContaining('50 MB') });
      const after = (await filesUnder(app.db.dataDir)).filter((file) => !file.endsWith('-wal') && !file.endsWith('-shm'));
      expect(after.filter((file) => !before.includes(file))).toEqual([]);
    });
  });

  describe('transforms', () => {
    let image: Upload;

    beforeAll(async () => {
      image = (await upload(await sharp({ create: { width: 400, height: 300, channels: 3, background: '#3366cc' } }).jpeg().toBuffer(), 'blue.jpg')).body;
    });

    const metadataOf = async (query: string) => {
      const response = await fetchAsset(`${image.url}?${query}`);
      expect(response.status).toBe(200);
      return { response, metadata: await sharp(response.bytes).metadata() };
    };

    it('resizes by width keeping the aspect ratio, and by width and height with each fit', async () => {
      expect((await metadataOf('w=100')).metadata).toMatchObject({ width: 100, height: 75, format: 'jpeg' });
      expect((await metadataOf('h=60')).metadata).toMatchObject({ width: 80, height: 60 });
      expect((await metadataOf('w=100&h=100&fit=cover')).metadata).toMatchObject({ width: 100, height: 100 });
      expect((await metadataOf('w=100&h=100&fit=fill')).metadata).toMatchObject({ width: 100, height: 100 });
      expect((await metadataOf('w=100&h=100&fit=contain&format=png')).metadata).toMatchObject({ width: 100, height: 100, hasAlpha: true });
    });

    it('multiplies by dpr and never enlarges', async () => {
      expect((await metadataOf('w=100&dpr=2')).metadata).toMatchObject({ width: 200, height: 150 });
      expect((await metadataOf('w=1000')).metadata).toMatchObject({ width: 400, height: 300 });
    });

    it('converts formats with the right Content-Type', async () => {
      for (const [format, mime] of [
        ['webp', 'image/webp'],
        ['avif', 'image/avif'],
        ['png', 'image/png'],
        ['jpeg', 'image/jpeg'],
      ] as const) {
        const { response, metadata } = await metadataOf(`w=50&format=${format}`);
        expect(response.headers.get('content-type')).toBe(mime);
        expect(metadata.format === 'heif' ? 'avif' : metadata.format).toBe(format);
      }
    });

    it('applies quality and blur', async () => {
      const low = await metadataOf('w=300&format=jpeg&q=5');
      const high = await metadataOf('w=300&format=jpeg&q=95');
      expect(low.response.bytes.length).toBeLessThan(high.response.bytes.length);
      const noisy = (await upload(await sharp({ create: { width: 100, height: 100, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer(), 'n.png')).body;
      const sharpStats = await sharp((await fetchAsset(`${noisy.url}?w=100&format=png`)).bytes).stats();
      const blurredStats = await sharp((await fetchAsset(`${noisy.url}?w=100&format=png&blur=5`)).bytes).stats();
      expect(blurredStats.channels[0]!.stdev).toBeLessThan(sharpStats.channels[0]!.stdev / 2);
    });

    it('caches a variant: the second request is served from the same file; ETag and 304', async () => {
      const first = await fetchAsset(`${image.url}?w=120&format=webp`);
      const cacheDir = join(app.db.dataDir, 'cache', image.assetId);
      const cached = await filesUnder(cacheDir);
      const { stat } = await import('node:fs/promises');
      const stamps = await Promise.all(cached.map(async (file) => (await stat(file)).mtimeMs));
      const second = await fetchAsset(`${image.url}?format=webp&w=120`);
      expect(second.bytes.equals(first.bytes)).toBe(true);
      expect(await filesUnder(cacheDir)).toEqual(cached);
      expect(await Promise.all(cached.map(async (file) => (await stat(file)).mtimeMs))).toEqual(stamps);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]+"$/);
      expect(second.headers.get('etag')).toBe(etag);
      expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const notModified = await fetchAsset(`${image.url}?w=120&format=webp`, { headers: { 'if-none-match': etag } });
      expect(notModified.status).toBe(304);
      expect(notModified.bytes.length).toBe(0);
      const original = await fetchAsset(image.url);
      expect(original.headers.get('etag')).not.toBe(etag);
      expect((await fetchAsset(image.url, { headers: { 'if-none-match': original.headers.get('etag')! } })).status).toBe(304);
    });

    it.each(['w=0', 'w=5000', 'h=-1', 'w=abc', 'q=0', 'q=101', 'fit=zoom', 'format=gif', 'blur=0', 'blur=1000', 'dpr=0.5', 'dpr=4'])(
      'answers 400 for %s',
      async (query) => {
        const response = await app.request('GET', `${image.url}?${query}`, { token: app.admin });
        expectErrorBody(response, 400);
      },
    );
  });

  describe('access, listing and deletion', () => {
    it('lets viewers and read tokens fetch but not upload or delete; editors may', async () => {
      const { body } = await upload(await solidPng(3, 3), 'a.png');
      const viewer = await createUser(app, app.admin, 'viewer');
      expect((await fetchAsset(body.url, { token: viewer.token })).status).toBe(200);
      expect((await upload(await solidPng(3, 3), 'b.png', { token: viewer.token })).status).toBe(403);
      expectErrorBody(await app.request('DELETE', `/api/v1/assets/production/${body.assetId}`, { token: viewer.token, headers: { 'x-project': project.slug } }), 403);
      const read = await createApiToken(app, app.admin, project.slug);
      expect((await fetchAsset(body.url, { token: read.token })).status).toBe(200);
      expect((await upload(await solidPng(3, 3), 'c.png', { token: read.token })).status).toBe(403);
      const editor = await createUser(app, app.admin, 'editor');
      expect((await upload(await solidPng(3, 3), 'd.png', { token: editor.token })).status).toBe(201);
    });

    it('refuses tokens of another dataset or project', async () => {
      const { body } = await upload(await solidPng(3, 3), 'scoped.png');
      const staging = await createApiToken(app, app.admin, project.slug, { dataset: 'staging' });
      expect((await fetchAsset(body.url, { token: staging.token })).status).toBe(403);
      const other = await createProject(app, app.admin);
      const foreign = await createApiToken(app, app.admin, other.slug);
      expect((await fetchAsset(body.url, { token: foreign.token })).status).toBe(403);
      expect((await fetchAsset(body.url, { token: 'nope' })).status).toBe(401);
    });

    it('refuses traversal attempts in ids', async () => {
      for (const id of ['..%2F..%2Fetc%2Fpasswd', 'not-a-uuid', '00000000-0000-0000-0000-000000000000%2F..', '%00']) {
        expectErrorBody(await app.request('GET', `/api/v1/assets/${id}`, { token: app.admin }), 400);
      }
      // A client resolves a dot segment before sending; what arrives is another route.
      expectErrorBody(await app.request('GET', '/api/v1/assets/%2e%2e', { token: app.admin }), 404);
      expectErrorBody(await app.request('GET', '/api/v1/assets/00000000-0000-0000-0000-000000000000', { token: app.admin }), 404);
    });

    it('lists with type, limit and offset; total counts every match', async () => {
      const listed = await createProject(app, app.admin);
      const uploadTo = async (bytes: Buffer, name: string) => {
        const form = new FormData();
        form.append('file', new Blob([bytes]), name);
        await fetch(`${app.url}/api/v1/assets/production`, { method: 'POST', headers: { authorization: `Bearer ${app.admin}`, 'x-project': listed.slug }, body: form });
      };
      for (let i = 0; i < 3; i++) await uploadTo(await solidPng(5 + i, 5), `i${i}.png`);
      await uploadTo(Buffer.from('hello'), 'notes.txt');
      const list = (query: string) =>
        app.request<{ items: { type: string; id: string; metadata: { width?: number } }[]; total: number }>('GET', `/api/v1/assets/production/list${query}`, {
          token: app.admin,
          headers: { 'x-project': listed.slug },
        });
      const all = await list('');
      expect(all.body.total).toBe(4);
      expect(all.body.items).toHaveLength(4);
      const images = await list('?type=image&limit=2');
      expect(images.body.total).toBe(3);
      expect(images.body.items).toHaveLength(2);
      expect(images.body.items.every((item) => item.type === 'image' && typeof item.metadata.width === 'number')).toBe(true);
      expect((await list('?type=image&limit=2&offset=2')).body.items).toHaveLength(1);
      expect(Object.keys(all.body.items[0]!).sort()).toEqual(['created_at', 'filename', 'id', 'metadata', 'mime_type', 'size', 'type', 'url']);
      expectErrorBody(await list('?type=video'), 400);
      expectErrorBody(await list('?limit=1000'), 400);
    });

    it('deletes the record, the file and its cached variants, and emits asset.delete', async () => {
      const { body } = await upload(await solidPng(40, 40), 'gone.png');
      await fetchAsset(`${body.url}?w=10`);
      expect((await filesUnder(join(app.db.dataDir, 'cache', body.assetId))).length).toBe(1);
      const deleted = await app.request('DELETE', `/api/v1/assets/production/${body.assetId}`, { token: app.admin, headers: { 'x-project': project.slug } });
      expect(deleted).toMatchObject({ status: 200, body: { deleted: true, id: body.assetId } });
      expect((await fetchAsset(body.url)).status).toBe(404);
      expect(await filesUnder(join(app.db.dataDir, 'cache', body.assetId))).toEqual([]);
      expect((await filesUnder(join(app.db.dataDir, 'assets'))).some((file) => file.includes(body.assetId))).toBe(false);
      const events = (await outboxEvents(app)).filter((e) => e.documentId === body.assetId).map((e) => e.event);
      expect(events).toEqual(['asset.upload', 'asset.delete']);
      expectErrorBody(await app.request('DELETE', `/api/v1/assets/production/${body.assetId}`, { token: app.admin, headers: { 'x-project': project.slug } }), 404);
    });
  });
});
