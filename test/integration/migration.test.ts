import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { expectErrorBody, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { withFailingInsert } from '../helpers/failing-insert.ts';
import type { ImportResult } from '../../src/import-export/import-service.ts';

/** An import's answer (the service's ImportResult, as JSON). */
type ImportBody = ImportResult;

const ndjson = (...documents: unknown[]) => documents.map((document) => (typeof document === 'string' ? document : JSON.stringify(document))).join('\n');

describe(`export and import (${testEngine})`, () => {
  const app = useTestApp();

  async function importInto(project: TestProject, body: string, options: { query?: string; token?: string; type?: string; dataset?: string } = {}) {
    return app.request<ImportBody>('POST', `/api/v1/data/import/${options.dataset ?? 'production'}${options.query ?? ''}`, {
      token: options.token ?? app.admin,
      headers: { 'x-project': project.slug, 'content-type': options.type ?? 'application/x-ndjson' },
      rawBody: body,
    });
  }

  async function exportFrom(project: TestProject, query = '', token = app.admin, dataset = 'production') {
    const response = await fetch(`${app.url}/api/v1/data/export/${dataset}${query}`, {
      headers: { authorization: `Bearer ${token}`, 'x-project': project.slug },
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      documents: response.status === 200 ? text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) : [],
    };
  }

  describe('export', () => {
    it('streams every document, drafts included, as NDJSON with the download headers', async () => {
      const project = await createProject(app, app.admin);
      await dataClient(app, app.admin, project.slug).mutate([
        { create: { _id: 'b', _type: 'post', title: 'B' } },
        { create: { _id: 'a', _type: 'author', name: 'A' } },
        { create: { _id: 'drafts.b', _type: 'post', title: 'B draft' } },
      ]);
      const exported = await exportFrom(project);
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-type')).toBe('application/x-ndjson');
      expect(exported.headers.get('content-disposition')).toBe('attachment; filename=production-export.ndjson');
      expect(exported.text.endsWith('\n')).toBe(true);
      expect(exported.documents.map((document) => document._id)).toEqual(['a', 'b', 'drafts.b']);
      expect(exported.documents[1]).toMatchObject({ _type: 'post', title: 'B', _rev: expect.any(String), _createdAt: expect.any(String) });
      expect((await exportFrom(project, '?types=post')).documents.map((document) => document._id)).toEqual(['b', 'drafts.b']);
      expect((await exportFrom(project, '?types=post,author&drafts=false')).documents.map((document) => document._id)).toEqual(['a', 'b']);
    });

    it('streams a dataset larger than one page', async () => {
      const project = await createProject(app, app.admin);
      const lines = Array.from({ length: 2500 }, (_, i) => ({ _id: `doc-${String(i).padStart(5, '0')}`, _type: 'bulk', n: i }));
      ok(await importInto(project, ndjson(...lines)));
      const exported = await exportFrom(project);
      expect(exported.documents).toHaveLength(2500);
      expect(exported.documents.map((document) => document.n)).toEqual(lines.map((line) => line.n));
    });

    it('lets viewers and read tokens export, a token only its own dataset', async () => {
      const project = await createProject(app, app.admin, ['production', 'staging']);
      const viewer = await createUser(app, app.admin, 'viewer');
      expect((await exportFrom(project, '', viewer.token)).status).toBe(200);
      const scoped = await createApiToken(app, app.admin, project.slug, { dataset: 'staging' });
      expect((await exportFrom(project, '', scoped.token, 'staging')).status).toBe(200);
      expect((await exportFrom(project, '', scoped.token, 'production')).status).toBe(403);
      expect((await exportFrom(project, '', 'bad-token')).status).toBe(401);
    });
  });

  describe('import', () => {
    it('round-trips: an export imported into an empty dataset gives the same documents', async () => {
      const source = await createProject(app, app.admin);
      await dataClient(app, app.admin, source.slug).mutate([
        { create: { _id: 'p1', _type: 'post', title: 'One', body: [{ _key: 'k', _type: 'block', children: [{ _type: 'span', text: 'x' }] }] } },
        { create: { _id: 'drafts.p1', _type: 'post', title: 'One, edited' } },
        { create: { _id: 'au', _type: 'author', name: 'Ann', tags: ['a', 'b'], nested: { deep: { n: 1.5 } } } },
      ]);
      const exported = await exportFrom(source);
      const target = await createProject(app, app.admin);
      const result = ok(await importInto(target, exported.text));
      expect(result).toEqual({ total: 3, created: 3, replaced: 0, skipped: 0, errors: [] });
      const reimported = await exportFrom(target);
      const withoutRev = (documents: Record<string, unknown>[]) => documents.map(({ _rev: _ignored, ...rest }) => rest);
      expect(withoutRev(reimported.documents)).toEqual(withoutRev(exported.documents));
    });

    it('applies the import rules: system ids skipped, existing skipped or replaced, _createdAt kept', async () => {
      const project = await createProject(app, app.admin);
      await dataClient(app, app.admin, project.slug).mutate([{ create: { _id: 'existing', _type: 'post', v: 'old' } }]);
      const body = ndjson(
        { _id: 'system.group.x', _type: 'system.group' },
        { _id: '_.listeners.y', _type: 'x' },
        { _id: 'existing', _type: 'post', v: 'new' },
        { _id: 'fresh', _type: 'post', _createdAt: '2019-05-06T07:08:09Z', _updatedAt: '2019-05-07T00:00:00Z' },
      );
      expect(ok(await importInto(project, body))).toEqual({ total: 4, created: 1, replaced: 0, skipped: 3, errors: [] });
      const data = dataClient(app, app.admin, project.slug);
      expect(ok(await data.doc('existing')).v).toBe('old');
      expect(ok(await data.doc('fresh'))).toMatchObject({ _createdAt: '2019-05-06T07:08:09.000Z', _updatedAt: '2019-05-07T00:00:00.000Z' });
      expectErrorBody(await data.doc('system.group.x'), 404);

      const replaced = ok(await importInto(project, body, { query: '?replace=true' }));
      expect(replaced).toEqual({ total: 4, created: 0, replaced: 2, skipped: 2, errors: [] });
      expect(ok(await data.doc('existing')).v).toBe('new');
    });

    it('reports malformed and invalid lines with their numbers and commits the valid ones together', async () => {
      const project = await createProject(app, app.admin);
      const tooDeep = `{"_id":"deep","_type":"x","d":${'['.repeat(1000)}${']'.repeat(1000)}}`;
      const body = ['{"_id":"ok-1","_type":"post"}', 'this is not json', '', '[1,2]', '{"_id":"no-type"}', '{"_id":"bad id!","_type":"x"}', '{"_type":"post","title":"id assigned"}', '{"_id":"ok-2","_type":"post"}', tooDeep].join('\n');
      const result = ok(await importInto(project, body));
      expect(result.total).toBe(8);
      expect(result.created).toBe(3);
      expect(result.errors.map((error) => error.line)).toEqual([2, 4, 5, 6, 9]);
      expect(result.errors[4]!.error).toBe('the document nests objects and arrays more than 1000 levels deep');
      expect(result.errors[0]!.error).toContain('invalid JSON');
      expect(result.errors[2]!.error).toContain('_type');
      expect(result.errors[3]!.error).toContain('_id');
      const ids = (await exportFrom(project)).documents.map((document) => document._id as string);
      expect(ids).toContain('ok-1');
      expect(ids).toContain('ok-2');
      expect(ids).toHaveLength(3);
    });

    it('accepts a JSON array or NDJSON as application/json and handles CRLF line ends', async () => {
      const project = await createProject(app, app.admin);
      expect(ok(await importInto(project, JSON.stringify([{ _id: 'j1', _type: 'post' }, 'nope']), { type: 'application/json' }))).toMatchObject({
        created: 1,
        errors: [{ line: 2, error: 'not a JSON object' }],
      });
      expect(ok(await importInto(project, '{"_id":"c1","_type":"post"}\r\n{"_id":"c2","_type":"post"}\r\n')).created).toBe(2);
      expect(ok(await importInto(project, '{"a":1}', { type: 'application/json' })).errors).toEqual([{ line: 1, error: '_type is required (a non-empty string)' }]);
      expectErrorBody(await importInto(project, 'x', { type: 'text/csv' }), 415);
    });

    it('writes one revision and one event per created or replaced document', async () => {
      const project = await createProject(app, app.admin);
      await importInto(project, ndjson({ _id: 'e1', _type: 'post' }, { _id: 'e2', _type: 'post' }));
      await importInto(project, ndjson({ _id: 'e1', _type: 'post', v: 2 }), { query: '?replace=true' });
      // On PostgreSQL the outbox is read up to the oldest transaction still running, which may be
      // another test file's import: wait until this test's events are readable.
      const ofThisTest = async () => (await outboxEvents(app)).filter((event) => event.projectId === project.id);
      for (const until = Date.now() + 5000; (await ofThisTest()).length < 3 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 50));
      const events = await ofThisTest();
      expect(events.map((event) => `${event.event} ${event.documentId}`)).toEqual(['document.create e1', 'document.create e2', 'document.update e1']);
      const history = await app.services.store.revisions.list(project.id, 'production', 'e1', 10, 0);
      expect(history.map((revision) => revision.revision)).toEqual([2, 1]);
    });

    it('needs an app.admin session: editors and tokens are refused, project admins allowed', async () => {
      const project = await createProject(app, app.admin);
      const editor = await createUser(app, app.admin, 'editor');
      expectErrorBody(await importInto(project, ndjson({ _id: 'x', _type: 'y' }), { token: editor.token }), 403);
      const token = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
      expectErrorBody(await importInto(project, ndjson({ _id: 'x', _type: 'y' }), { token: token.token }), 403);
      const projectAdmin = await createUser(app, app.admin, 'editor', { project_access: [{ projectId: project.id, role: 'admin' }] });
      expect((await importInto(project, ndjson({ _id: 'x', _type: 'y' }), { token: projectAdmin.token })).status).toBe(200);
    });

    // Line 700 is in the second batch of 500, written while the third is parsed; line 1100 in the last.
    it.each([700, 1100])('writes nothing when storage fails in the middle of an import (at line %i)', async (failing) => {
      const project = await createProject(app, app.admin);
      await withFailingInsert(app, 'boom', async () => {
        const lines = Array.from({ length: 1600 }, (_, i) => ({ _id: i === failing ? 'boom' : `n${i}`, _type: 'post' }));
        const response = await importInto(project, ndjson(...lines));
        expect(response.status).toBe(500);
        expect(response.body).toMatchObject({ statusCode: 500, error: 'Internal Server Error' });
      });
      expect((await exportFrom(project)).documents).toEqual([]);
      expect((await outboxEvents(app)).filter((event) => event.projectId === project.id)).toEqual([]);
    });

    it('writes nothing when the client goes away in the middle of the body, and keeps serving', async () => {
      const project = await createProject(app, app.admin);
      const lines = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ _id: `cut${i}`, _type: 'post', text: 'x'.repeat(200) }));
      const url = new URL('/api/v1/data/import/production', app.url);
      const request = http.request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.admin}`, 'x-project': project.slug, 'content-type': 'application/x-ndjson', 'content-length': '10000000' },
      });
      const closed = new Promise<void>((resolve) => request.on('close', () => resolve()));
      request.on('error', () => undefined);
      // Three batches' worth of lines arrive, then the connection drops before the body is complete.
      request.write(`${lines.join('\n')}\n`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      request.destroy();
      await closed;
      // The body was being kept in a temporary file; the server deletes it and writes nothing.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await app.services.store.documents.count(project.id, 'production')).toBe(0);
      expect(readdirSync(join(app.db.dataDir, 'tmp'))).toEqual([]);
      const after = await importInto(project, ndjson({ _id: 'after', _type: 'post' }));
      expect(after.body).toMatchObject({ created: 1 });
      expect((await exportFrom(project)).documents.map((document) => document._id)).toEqual(['after']);
    });
  });
});

describe(`import limits (${testEngine})`, () => {
  it('refuses a body over IMPORT_BODY_LIMIT_MB with 413 and writes nothing', async () => {
    const app = await startTestApp({ IMPORT_BODY_LIMIT_MB: '1' });
    try {
      const admin = await app.login();
      const project = await createProject(app, admin);
      const line = JSON.stringify({ _type: 'big', text: 'x'.repeat(1000) });
      const response = await app.request('POST', '/api/v1/data/import/production', {
        token: admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: Array.from({ length: 1500 }, () => line).join('\n'),
      });
      expect(expectErrorBody(response, 413).message).toContain('IMPORT_BODY_LIMIT_MB');
      expect(await app.services.store.documents.count(project.id, 'production')).toBe(0);
    } finally {
      await app.close();
    }
  });
});
