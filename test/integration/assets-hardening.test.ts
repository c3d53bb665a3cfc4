import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import sharp from 'sharp';
import { expectErrorBody, startTestApp, type ApiResponse, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { solidPng } from '../helpers/images.ts';
import { testEngine } from '../helpers/engine.ts';

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
  const form = new FormData();
  form.append('file', new Blob([bytes]), filename);
  const response = await fetch(`${app.url}/api/v1/assets/production`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'x-project': project.slug },
    body: form,
  });
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

describe(`bad image parameters, list windows and uploads are 4xx (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let sanityUrl: string;

  beforeAll(async () => {
    ({ app, admin, project } = await startAssetApp());
    const png = await solidPng(64, 48);
    await upload(app, admin, project, png, 'small.png');
    sanityUrl = `/api/v1/images/${project.id}/production/${createHash('sha1').update(png).digest('hex')}-64x48.png`;
  });
  afterAll(async () => app.close());

  const prototypeNames = ['toString', 'valueOf', 'hasOwnProperty', '__proto__', 'constructor'];
  const lookups = ['fit', 'crop', 'fm'].flatMap((name) => prototypeNames.map((value) => `${name}=${value}`));

  it.each(lookups)('answers 400 to %s on /images', async (parameter) => {
    expectErrorBody(await app.request('GET', `${sanityUrl}?w=10&h=10&fit=crop&${parameter}`, { token: admin }), 400);
    expectErrorBody(await app.request('GET', `${sanityUrl}?${parameter}`, { token: admin }), 400);
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

  it('keeps accepting a multipart upload with a quoted boundary', async () => {
    const body = `${part('a b')}abc\r\n--a b--\r\n`;
    expect((await multipart('multipart/form-data; boundary="a b"', body)).status).toBe(201);
  });
});

describe(`fit=fill stretches to exactly w x h (${testEngine})`, () => {
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
});
