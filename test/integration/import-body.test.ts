import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { rawRequest, type RawRequest } from '../helpers/raw-request.ts';
import { testEngine } from '../helpers/engine.ts';

interface ImportBody {
  total: number;
  created: number;
  replaced: number;
  skipped: number;
  errors: { line: number; error: string }[];
}

/** The line limit of an import (the largest mutation body). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** How long a test waits for something that must happen, before it counts as never. */
const BOUND_MS = 5000;

/** Resolves with `promise`, or fails once `BOUND_MS` passed: the server did not answer. */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${BOUND_MS} ms`)), BOUND_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + BOUND_MS;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`still not true after ${BOUND_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(`import bodies (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let spoolDir: string;
  const spooled = () => (existsSync(spoolDir) ? readdirSync(spoolDir) : []);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.login();
    spoolDir = join(app.db.dataDir, 'tmp');
  });
  afterAll(async () => app.close());

  /** An import whose body the test sends itself, announcing `contentLength` bytes (or chunked without it). */
  function openImport(project: TestProject, contentType: string, contentLength?: number): RawRequest {
    return rawRequest(app.url, 'POST', '/api/v1/data/import/production', {
      authorization: `Bearer ${admin}`,
      'x-project': project.slug,
      'content-type': contentType,
      ...(contentLength === undefined ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(contentLength) }),
    });
  }

  function importInto(project: TestProject, body: string, type: string) {
    return app.request<ImportBody>('POST', '/api/v1/data/import/production', {
      token: admin,
      headers: { 'x-project': project.slug, 'content-type': type },
      rawBody: body,
    });
  }

  /** Sends `start`, then a string that grows past the line limit, stopping once the server answers. */
  async function sendLongLine(request: RawRequest, start: string) {
    try {
      await request.write(start);
      const part = Buffer.alloc(1024 * 1024, 'x');
      for (let sent = 0; sent <= MAX_LINE_BYTES && !request.answered(); sent += part.length) await request.write(part);
      return await bounded(request.response, 'the refusal');
    } finally {
      request.socket.destroy();
    }
  }

  const documentCount = (project: TestProject) => app.services.store.documents.count(project.id, 'production');

  describe('a slow client holds no lock', () => {
    it('answers writes, project creation and login while an import body is still arriving; an aborted import writes nothing', async () => {
      const project = await createProject(app, admin);
      const other = await createProject(app, admin);
      const stalled = openImport(project, 'application/x-ndjson', 10_000_000);
      try {
        await stalled.write(`${JSON.stringify({ _id: 'first', _type: 'post' })}\n`);
        // Time for the server to take up the import; what is checked below is the order of the answers.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const [mutation, created, login] = await Promise.all([
          bounded(dataClient(app, admin, other.slug).mutate([{ create: { _id: 'elsewhere', _type: 'post' } }]), 'a mutation in another project'),
          bounded(app.request('POST', '/api/v1/projects', { token: admin, body: { name: 'During import', slug: `during-${Date.now()}` } }), 'a project creation'),
          bounded(app.request('POST', '/api/v1/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }), 'a login'),
        ]);
        expect([mutation.status, created.status, login.status]).toEqual([200, 201, 200]);
        expect(stalled.answered()).toBe(false);
        expect(spooled()).toHaveLength(1);
      } finally {
        stalled.socket.destroy();
      }
      await waitFor(() => spooled().length === 0, 'the aborted import deleted its temporary file');
      expect(await documentCount(project)).toBe(0);
      expect(await documentCount(other)).toBe(1);
    });

    it('imports once the slow body is complete, and deletes its temporary file', async () => {
      const project = await createProject(app, admin);
      const first = `${JSON.stringify({ _id: 'slow-1', _type: 'post' })}\n`;
      const last = `${JSON.stringify({ _id: 'slow-2', _type: 'post' })}\n`;
      const length = 100_000;
      const slow = openImport(project, 'application/x-ndjson', length);
      let response;
      try {
        await slow.write(first);
        await waitFor(() => spooled().length === 1, 'the import is receiving its body');
        ok(await bounded(dataClient(app, admin, project.slug).mutate([{ create: { _id: 'meanwhile', _type: 'post' } }]), 'a mutation'));
        // Blank lines fill the announced length.
        await slow.write(last + '\n'.repeat(length - first.length - last.length));
        response = await bounded(slow.response, 'the import');
      } finally {
        slow.socket.destroy();
      }
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ total: 2, created: 2, replaced: 0, skipped: 0, errors: [] });
      expect(spooled()).toEqual([]);
      expect(await documentCount(project)).toBe(3);
    });
  });

  describe('line limit', () => {
    it('refuses a line over the limit with 400 before the rest of it arrives, and keeps serving', async () => {
      const project = await createProject(app, admin);
      const response = await sendLongLine(openImport(project, 'application/x-ndjson', 64 * 1024 * 1024), '{"_id":"ok","_type":"post"}\n{"_id":"big","_type":"post","text":"');
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ statusCode: 400, error: 'Bad Request', message: `line 2 is longer than ${MAX_LINE_BYTES} bytes` });
      expect(response.headers.connection).toBe('close');
      await waitFor(() => spooled().length === 0, 'the refused import deleted its temporary file');
      expect(await documentCount(project)).toBe(0);
      expect((await bounded(importInto(project, '{"_id":"after","_type":"post"}', 'application/x-ndjson'), 'an import')).body).toMatchObject({ created: 1 });
    });
  });
});
