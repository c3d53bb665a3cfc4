import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { ADMIN_EMAIL, ADMIN_PASSWORD, useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { rawRequest, type RawRequest } from '../helpers/raw-request.ts';
import { testEngine } from '../helpers/engine.ts';
import type { ImportResult } from '../../src/import-export/import-service.ts';
import { FORBIDDEN_KEYS_MESSAGE } from '../../src/json/request-json.ts';

/** An import's answer (the service's ImportResult, as JSON). */
type ImportBody = ImportResult;

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
  const app = useTestApp();
  let spoolDir: string;
  const spooled = () => (existsSync(spoolDir) ? readdirSync(spoolDir) : []);

  beforeAll(async () => {
    spoolDir = join(app.db.dataDir, 'tmp');
  });

  /** An import whose body the test sends itself, announcing `contentLength` bytes (or chunked without it). */
  function openImport(project: TestProject, contentType: string, contentLength?: number): RawRequest {
    return rawRequest(app.url, 'POST', '/api/v1/data/import/production', {
      authorization: `Bearer ${app.admin}`,
      'x-project': project.slug,
      'content-type': contentType,
      ...(contentLength === undefined ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(contentLength) }),
    });
  }

  function importInto(project: TestProject, body: string, type: string) {
    return app.request<ImportBody>('POST', '/api/v1/data/import/production', {
      token: app.admin,
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
      const project = await createProject(app, app.admin);
      const other = await createProject(app, app.admin);
      const stalled = openImport(project, 'application/x-ndjson', 10_000_000);
      try {
        await stalled.write(`${JSON.stringify({ _id: 'first', _type: 'post' })}\n`);
        // Time for the server to take up the import; what is checked below is the order of the answers.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const [mutation, created, login] = await Promise.all([
          bounded(dataClient(app, app.admin, other.slug).mutate([{ create: { _id: 'elsewhere', _type: 'post' } }]), 'a mutation in another project'),
          bounded(app.request('POST', '/api/v1/projects', { token: app.admin, body: { name: 'During import', slug: `during-${Date.now()}` } }), 'a project creation'),
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
      const project = await createProject(app, app.admin);
      const first = `${JSON.stringify({ _id: 'slow-1', _type: 'post' })}\n`;
      const last = `${JSON.stringify({ _id: 'slow-2', _type: 'post' })}\n`;
      const length = 100_000;
      const slow = openImport(project, 'application/x-ndjson', length);
      let response;
      try {
        await slow.write(first);
        await waitFor(() => spooled().length === 1, 'the import is receiving its body');
        ok(await bounded(dataClient(app, app.admin, project.slug).mutate([{ create: { _id: 'meanwhile', _type: 'post' } }]), 'a mutation'));
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
      const project = await createProject(app, app.admin);
      const response = await sendLongLine(openImport(project, 'application/x-ndjson', 64 * 1024 * 1024), '{"_id":"ok","_type":"post"}\n{"_id":"big","_type":"post","text":"');
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ statusCode: 400, error: 'Bad Request', message: `line 2 is longer than ${MAX_LINE_BYTES} bytes` });
      expect(response.headers.connection).toBe('close');
      await waitFor(() => spooled().length === 0, 'the refused import deleted its temporary file');
      expect(await documentCount(project)).toBe(0);
      expect((await bounded(importInto(project, '{"_id":"after","_type":"post"}', 'application/x-ndjson'), 'an import')).body).toMatchObject({ created: 1 });
    });

    it('refuses an over-long element of a JSON array the same way', async () => {
      const project = await createProject(app, app.admin);
      const response = await sendLongLine(
        openImport(project, 'application/json', 64 * 1024 * 1024),
        '[{"_id":"a","_type":"post"},\n{"_id":"b","_type":"post"},\n{"_id":"big","_type":"post","text":"',
      );
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ statusCode: 400, message: `array element 3 is longer than ${MAX_LINE_BYTES} bytes` });
      expect(await documentCount(project)).toBe(0);
    });
  });

  describe('application/json', () => {
    it('imports NDJSON sent as application/json', async () => {
      const project = await createProject(app, app.admin);
      const body = '\n{"_id":"n1","_type":"post"}\r\n{"_id":"n2","_type":"post","tags":["[",","]}\n{"_id":"n3"}\n';
      expect(ok(await importInto(project, body, 'application/json; charset=utf-8'))).toEqual({
        total: 3,
        created: 2,
        replaced: 0,
        skipped: 0,
        errors: [{ line: 4, error: '_type is required (a non-empty string)' }],
      });
    });

    it('skips a UTF-8 byte order mark at the start of the body, in NDJSON and in arrays', async () => {
      const project = await createProject(app, app.admin);
      const bom = '\ufeff';
      expect(ok(await importInto(project, `${bom}{"_id":"bom1","_type":"post"}\n`, 'application/x-ndjson')).created).toBe(1);
      expect(ok(await importInto(project, `${bom}[{"_id":"bom2","_type":"post"}]`, 'application/json')).created).toBe(1);
    });

    it('imports a JSON array, numbering its elements as lines', async () => {
      const project = await createProject(app, app.admin);
      const documents = [{ _id: 'a1', _type: 'post', title: 'a ] , [ } { " \\' }, 'nope', { _id: 'a2', _type: 'post', nested: [[{ x: '}' }]] }];
      expect(ok(await importInto(project, JSON.stringify(documents, null, 2), 'application/json'))).toEqual({
        total: 3,
        created: 2,
        replaced: 0,
        skipped: 0,
        errors: [{ line: 2, error: 'not a JSON object' }],
      });
      expect(ok(await dataClient(app, app.admin, project.slug).doc('a1')).title).toBe('a ] , [ } { " \\');
      const broken = ok(await importInto(project, '[{"_id":"b1","_type":"post"},,{"_id":"b2","_type":"post"}', 'application/json'));
      expect(broken.errors).toEqual([
        { line: 2, error: 'an empty array element' },
        { line: 4, error: 'the array is not closed: the body ends before its ]' },
      ]);
      expect(broken.created).toBe(2);
    });

    it('streams a large array sent in small pieces into a file as it arrives', async () => {
      const project = await createProject(app, app.admin);
      const count = 3000;
      const text = `[${Array.from({ length: count }, (_, i) => JSON.stringify({ _id: `s${i}`, _type: 'post', body: `"quoted" ]},[{ ${'é'.repeat(i % 50)}` }, null, 1)).join(',\n')}]`;
      const bytes = Buffer.from(text);
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(new URL('/api/v1/data/import/production', app.url), {
          method: 'POST',
          headers: { authorization: `Bearer ${app.admin}`, 'x-project': project.slug, 'content-type': 'application/json' },
        });
        request.on('error', reject);
        request.on('response', (answer) => {
          let body = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => (body += chunk));
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }));
        });
        // Chunks of odd sizes, cutting through strings, escapes and multi-byte characters; halfway,
        // what was sent is already in the server's file, not held in its memory until the end.
        void (async () => {
          let half = false;
          for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7 + 3) % 8191 || 1) {
            if (!request.write(bytes.subarray(at, at + size))) await new Promise((resume) => request.once('drain', resume));
            if (!half && at > bytes.length / 2) {
              half = true;
              const sent = at;
              await waitFor(() => spooled().length === 1 && statSync(join(spoolDir, spooled()[0]!)).size >= sent, 'the first half is in the file').catch(reject);
            }
          }
          request.end();
        })();
      });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ total: count, created: count, replaced: 0, skipped: 0, errors: [] });
      expect(ok(await dataClient(app, app.admin, project.slug).doc('s49')).body).toBe(`"quoted" ]},[{ ${'é'.repeat(49)}`);
    });

    it('refuses a __proto__ key as an error line and never stores it, in NDJSON and in arrays', async () => {
      const project = await createProject(app, app.admin);
      const poisoned = '{"_id":"p1","_type":"post","__proto__":{"isAdmin":true}}';
      const fromNdjson = ok(await importInto(project, `{"_id":"fine","_type":"post"}\n${poisoned}`, 'application/x-ndjson'));
      expect(fromNdjson.errors).toEqual([{ line: 2, error: `invalid JSON: ${FORBIDDEN_KEYS_MESSAGE}` }]);
      const fromArray = ok(await importInto(project, `[${poisoned}, {"_id":"p2","_type":"post","constructor":{"prototype":{"x":1}}}]`, 'application/json'));
      expect(fromArray.errors.map((error) => error.line)).toEqual([1, 2]);
      expect(await documentCount(project)).toBe(1);
    });
  });
});
