import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { expectErrorBody, startTestApp, type TestApp } from '../helpers/test-app.ts';
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
