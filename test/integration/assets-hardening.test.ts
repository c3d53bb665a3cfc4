import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import sharp from 'sharp';
import { expectErrorBody, startTestApp, type ApiResponse, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { largeJpeg, solidPng } from '../helpers/images.ts';
import { testEngine } from '../helpers/engine.ts';
import { postAsset } from '../helpers/assets.ts';
import { prototypeSnapshot } from '../adversarial/invariants.ts';

interface Uploaded {
  _id: string;
  _type: string;
  url: string;
  metadata?: { width: number; height: number };
}

/** One app with its admin and project, and the requests these tests make of it. */
async function startAssetApp(env: Record<string, string> = {}) {
  const app = await startTestApp(env);
  const admin = await app.login();
  const project = await createProject(app, admin, ['production']);
  return { app, admin, project };
}

async function upload(app: TestApp, admin: string, project: TestProject, bytes: Buffer, filename: string): Promise<Uploaded> {
  const response = await postAsset(app, admin, project.slug, bytes, filename);
  expect(response.status).toBe(201);
  return (await response.json()) as Uploaded;
}

/**
 * A GET on a connection of its own: when the app closes right after the last answer, no kept-alive
 * socket is still finishing a response (it would hold the close for the keep-alive timeout).
 */
async function fetchBytes(app: TestApp, token: string, url: string) {
  const response = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(bytes.toString()) as unknown) : undefined;
  return { status: response.status, headers: response.headers, bytes, response: { status: response.status, headers: response.headers, body: json } as ApiResponse };
}

/** One colour: cheap to make and small to upload, however many pixels; decoding costs what any image of that size costs. */
const flat = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#3366cc' } });
/** Noise takes a real render: long enough that requests sent together all arrive while it runs. */
let noisyJpeg: Promise<Buffer> | undefined;
const noisy = () => (noisyJpeg ??= largeJpeg());

describe(`image transform limits with the defaults (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let photo: Uploaded;

  beforeAll(async () => {
    ({ app, admin, project } = await startAssetApp());
    // The size of a 52 MP camera's photos (8832 x 5888).
    photo = await upload(app, admin, project, await flat(8832, 5888).jpeg().toBuffer(), 'camera.jpg');
  });
  afterAll(async () => app.close());

  it('answers six concurrent 4096x4095 AVIF variants of a 100 MP PNG with 400 at once, and still serves the original', async () => {
    const huge = await upload(app, admin, project, await flat(10_000, 10_000).png().toBuffer(), 'huge.png');
    expect(huge).toMatchObject({ _type: 'image', metadata: { width: 10_000, height: 10_000 } });
    const answers = await Promise.all([11, 12, 13, 14, 15, 16].map((q) => fetchBytes(app, admin, `${huge.url}?w=4096&h=4095&format=avif&q=${q}`)));
    for (const answer of answers) expect(expectErrorBody(answer.response, 400).message).toMatch(/too large to transform \(100 MP; at most 70 MP\)/);
    expect((await fetchBytes(app, admin, huge.url)).status).toBe(200);
  });

  it('still makes a thumbnail of a 52 MP camera photo', async () => {
    const thumbnail = await fetchBytes(app, admin, `${photo.url}?w=400&format=webp`);
    expect(thumbnail.status).toBe(200);
    expect(await sharp(thumbnail.bytes).metadata()).toMatchObject({ width: 400, height: 267, format: 'webp' });
  });

  it('refuses a variant over 12 MP with 400, and fits one that asks for no size into the limit', async () => {
    const tooLarge = await app.request('GET', `${photo.url}?w=4096&h=4096`, { token: admin });
    expect(expectErrorBody(tooLarge, 400).message).toMatch(/4096x4096 pixels \(16\.8 MP\); at most 12 MP/);
    const converted = await fetchBytes(app, admin, `${photo.url}?q=80`);
    expect(converted.status).toBe(200);
    const { width = 0, height = 0 } = await sharp(converted.bytes).metadata();
    expect(width * height).toBeLessThanOrEqual(12_000_000);
    expect(width * height).toBeGreaterThan(11_900_000);
    expect(width / height).toBeCloseTo(1.5, 2);
  });
});

describe(`render places (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let image: Uploaded;

  beforeAll(async () => {
    ({ app, admin, project } = await startAssetApp({ IMAGE_MAX_CONCURRENT_RENDERS: '1', IMAGE_RENDER_QUEUE: '1' }));
    image = await upload(app, admin, project, await noisy(), 'noisy.jpg');
  });
  afterAll(async () => app.close());

  it('runs one new variant, queues one and answers the others 429 with Retry-After; a later retry succeeds', async () => {
    // Each q is a new variant, so each needs a render of its own.
    const urls = [40, 41, 42, 43, 44].map((q) => `${image.url}?w=400&format=avif&q=${q}`);
    const answers = await Promise.all(urls.map((url) => fetchBytes(app, admin, url)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(2);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('30');
      expect(expectErrorBody(answer.response, 429).message).toMatch(/transformed at once/);
    }
    const retried = urls[statuses.indexOf(429)]!;
    expect((await fetchBytes(app, admin, retried)).status).toBe(200);
  });

  it('serves a cached variant without a render place', async () => {
    const url = `${image.url}?w=400&format=avif&q=40`;
    const answers = await Promise.all([url, url, url, url].map((same) => fetchBytes(app, admin, same)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
  });
});

describe(`render queue wait (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;

  beforeAll(async () => {
    ({ app, admin, project } = await startAssetApp({ IMAGE_MAX_CONCURRENT_RENDERS: '1', IMAGE_RENDER_QUEUE: '5', IMAGE_RENDER_QUEUE_WAIT_MS: '1' }));
  });
  afterAll(async () => app.close());

  it('answers 429 to a render that waits longer than IMAGE_RENDER_QUEUE_WAIT_MS', async () => {
    const image = await upload(app, admin, project, await noisy(), 'noisy.jpg');
    const answers = await Promise.all([50, 51, 52].map((q) => fetchBytes(app, admin, `${image.url}?w=400&format=avif&q=${q}`)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect(answers.find((answer) => answer.status === 429)!.headers.get('retry-after')).toBe('1');
  });
});

describe(`bad image parameters, list windows and uploads are 4xx; fit=fill stretches to exactly w x h (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let small: Uploaded;
  let sanityUrl: string;

  beforeAll(async () => {
    ({ app, admin, project } = await startAssetApp());
    const png = await solidPng(64, 48);
    small = await upload(app, admin, project, png, 'small.png');
    sanityUrl = `/api/v1/images/${project.id}/production/${createHash('sha1').update(png).digest('hex')}-64x48.png`;
  });
  afterAll(async () => app.close());

  const prototypeNames = ['toString', 'valueOf', 'hasOwnProperty', '__proto__', 'constructor'];
  const lookups = ['fit', 'crop', 'fm'].flatMap((name) => prototypeNames.map((value) => `${name}=${value}`));

  it.each(lookups)('answers 400 to %s on /images', async (parameter) => {
    expectErrorBody(await app.request('GET', `${sanityUrl}?w=10&h=10&fit=crop&${parameter}`, { token: admin }), 400);
    expectErrorBody(await app.request('GET', `${sanityUrl}?${parameter}`, { token: admin }), 400);
  });

  it.each(['rect=0,0,100000,100000', 'rect=60,0,10,10', 'rect=0,40,10,10', 'rect=0,0,1e308,1'])('answers 400 to %s, outside the 64x48 image', async (rect) => {
    expect(expectErrorBody(await app.request('GET', `${sanityUrl}?${rect}`, { token: admin }), 400).message).toMatch(/rect/);
  });

  it.each(['offset=1e20', 'offset=99999999999999999999', 'limit=1e20', 'limit=99999999999999999999', 'offset=-1'])('answers 400 to the list window %s', async (window) => {
    expectErrorBody(await app.request('GET', `/api/v1/assets/production/list?${window}`, { token: admin, headers: { 'x-project': project.slug } }), 400);
  });

  const multipart = (contentType: string, rawBody: string) =>
    app.request('POST', '/api/v1/assets/production', { token: admin, headers: { 'x-project': project.slug, 'content-type': contentType }, rawBody });
  const part = (boundary: string) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;

  it('answers 400 to a multipart body cut off in a file or in its headers, leaving no file behind', async () => {
    const before = await readdir(app.db.dataDir, { recursive: true });
    expect(expectErrorBody(await multipart('multipart/form-data; boundary=XYZ', `${part('XYZ')}abcdef`), 400).message).toMatch(/multipart/);
    expectErrorBody(await multipart('multipart/form-data; boundary=XYZ', '--XYZ\r\nContent-Disposition: form-da'), 400);
    const after = (await readdir(app.db.dataDir, { recursive: true })).filter((file) => !file.endsWith('-wal') && !file.endsWith('-shm'));
    expect(after.filter((file) => !before.includes(file))).toEqual([]);
  });

  it.each(['multipart/form-data; boundary=', 'multipart/form-data; boundary=""', 'multipart/form-data'])('answers 400 to the Content-Type %j', async (contentType) => {
    expect(expectErrorBody(await multipart(contentType, `${part('')}abc\r\n----\r\n`), 400).message).toMatch(/boundary/);
  });

  // Names every object inherits, the parameters both routes read, and values past every range.
  const inherited = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
  const parameterName = fc.constantFrom(
    ...inherited,
    ...['w', 'h', 'fit', 'format', 'q', 'blur', 'dpr', 'rect', 'crop', 'fm', 'auto', 'bg', 'flip', 'or'],
    ...['__proto__[polluted]', 'constructor[prototype][polluted]'],
  );
  const parameterValue = fc.oneof(
    fc.constantFrom(...inherited, '1e308', '-1e308', '99999999999999999999', '-1', '-0', '0', 'NaN', 'Infinity', '0x10', '', ' ', '[]', '{}'),
    fc.constantFrom('0,0,100000,100000', '0,0,1e308,1', '-1,0,10,10', '1,2,3', '0,0,64,48', 'fff', 'cover', 'fill', 'scale', 'crop', 'format', 'hv', '90', '3', '4096'),
    fc.integer({ min: -100_000, max: 100_000 }).map(String),
    fc.double().map(String),
    fc.string({ maxLength: 12 }),
    fc.integer({ min: 100, max: 1_500 }).map((length) => '9'.repeat(length)),
  );

  it('answers generated hostile image parameters on both routes below 500, every 4xx with the standard body, and leaves Object.prototype alone', async () => {
    const prototypes = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(parameterName, parameterValue), { minLength: 1, maxLength: 6 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        for (const url of [`${small.url}?${query}`, `${sanityUrl}?${query}`]) {
          const response = await app.request('GET', url, { token: admin, headers: { connection: 'close' } });
          expect(response.status, `${url} -> ${JSON.stringify(response.body).slice(0, 200)}`).toBeLessThan(500);
          if (response.status >= 400) expectErrorBody(response, response.status);
        }
      }),
      { numRuns: 60 },
    );
    expect(prototypeSnapshot()).toEqual(prototypes);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it('keeps accepting a multipart upload with a quoted boundary', async () => {
    const body = `${part('a b')}abc\r\n--a b--\r\n`;
    expect((await multipart('multipart/form-data; boundary="a b"', body)).status).toBe(201);
  });

  // The same image: fit=fill stretches to exactly w x h.

  const sizeOf = async (url: string) => {
    const answer = await fetchBytes(app, admin, url);
    expect(answer.status).toBe(200);
    const { width, height } = await sharp(answer.bytes).metadata();
    return [width, height];
  };

  it('gives 30x50 of a 64x48 image, on /assets (fit=fill) and /images (fit=scale)', async () => {
    expect(await sizeOf(`${small.url}?w=30&h=50&fit=fill`)).toEqual([30, 50]);
    expect(await sizeOf(`${sanityUrl}?w=30&h=50&fit=scale`)).toEqual([30, 50]);
    expect(await sizeOf(`${small.url}?w=128&h=100&fit=fill`)).toEqual([128, 100]);
  });

  it('leaves the other fits never enlarging', async () => {
    expect(await sizeOf(`${small.url}?w=128&h=100&fit=cover`)).toEqual([64, 48]);
    expect(await sizeOf(`${small.url}?w=128`)).toEqual([64, 48]);
    expect(await sizeOf(`${sanityUrl}?w=128&h=100&fit=max`)).toEqual([64, 48]);
  });

  it('cuts a rect before turning it by or', async () => {
    expect(await sizeOf(`${sanityUrl}?rect=0,0,40,20&or=90`)).toEqual([20, 40]);
    expect(await sizeOf(`${sanityUrl}?rect=0,0,40,20&or=90&w=10`)).toEqual([10, 20]);
  });
});
