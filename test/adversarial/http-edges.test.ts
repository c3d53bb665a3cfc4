import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

/** Inputs at and past the edges of what routes accept: each is answered, with the standard body when refused. */
describe(`HTTP edges (${testEngine})`, () => {
  const app = useTestApp();
  let slug: string;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    slug = (await createProject(app, app.admin)).slug;
    data = dataClient(app, app.admin, slug);
  });

  it('serves ids of every length the id rule allows (up to 128 characters)', async () => {
    const id = `a${'b'.repeat(127)}`;
    ok(await data.mutate([{ create: { _id: `drafts.${id.slice(7)}`, _type: 'post', title: 'long' } }]));
    const draftId = `drafts.${id.slice(7)}`;
    expect(draftId).toHaveLength(128);
    expect(ok(await data.doc(draftId))._id).toBe(draftId);
    expect(ok(await data.publish(draftId))._id).toBe(id.slice(7));
    expect(ok(await data.history(id.slice(7))).revisions.length).toBeGreaterThan(0);
    expect(ok(await data.revision(id.slice(7), 1)).documentId).toBe(id.slice(7));
  });

  it('reads several draft ids in one request', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()].map((uuid) => `drafts.${uuid}`);
    ok(await data.mutate(ids.map((_id) => ({ create: { _id, _type: 'post' } }))));
    const body = ok(await data.doc<{ documents: { _id: string }[]; omitted: unknown[] }>(ids.join(',')));
    expect(body.documents.map((document) => document._id).sort()).toEqual([...ids].sort());
    expect(body.omitted).toEqual([]);
  });

  it('refuses what no route accepts with the standard body', async () => {
    const headers = { 'x-project': slug };
    const tooLong = await app.request('GET', `/api/v1/data/doc/production/${'a'.repeat(9000)}`, { token: app.admin, headers });
    expect(expectErrorBody(tooLong, 414).error).toBe('URI Too Long');
    expectErrorBody(await app.request('GET', '/api/v1/data/doc/production/%E0%A4%A', { token: app.admin, headers }), 400);
    expectErrorBody(await app.request('GET', '/api/v1/no/such/route', { token: app.admin }), 404);
    expectErrorBody(await app.request('POST', '/api/v1/data/mutate/production', { token: app.admin, headers: { ...headers, 'content-type': 'application/json' }, rawBody: '{"mutations": [' }), 400);
    expectErrorBody(await app.request('POST', '/api/v1/data/mutate/production', { token: app.admin, headers: { ...headers, 'content-type': 'text/x-unknown' }, rawBody: 'x' }), 415);
    const huge = JSON.stringify({ mutations: [{ create: { _type: 'post', text: 'x'.repeat(17 * 1024 * 1024) } }] });
    expectErrorBody(await app.request('POST', '/api/v1/data/mutate/production', { token: app.admin, headers: { ...headers, 'content-type': 'application/json' }, rawBody: huge }), 413);
  });

  it('answers offsets and revision numbers past what a database takes with 400', async () => {
    const headers = { 'x-project': slug };
    expectErrorBody(await app.request('GET', '/api/v1/data/history/production/x?offset=99999999999999999999', { token: app.admin, headers }), 400);
    expectErrorBody(await app.request('GET', '/api/v1/data/history/production/x/99999999999999999999', { token: app.admin, headers }), 400);
    expect((await app.request('GET', `/api/v1/data/history/production/x?offset=${Number.MAX_SAFE_INTEGER}`, { token: app.admin, headers })).status).toBe(200);
  });

  it('refuses text that is not Unicode in documents, on both engines alike', async () => {
    const headers = { 'x-project': slug, 'content-type': 'application/json' };
    for (const text of ['{"_type":"t","a":"x\\u0000y"}', '{"_type":"t","a\\u0000":1}', '{"_type":"t","a":["\\ud800"]}', '{"_type":"t","\\udc00":1}']) {
      const response = await app.request('POST', '/api/v1/data/mutate/production', { token: app.admin, headers, rawBody: `{"mutations":[{"create":${text}}]}` });
      expect(expectErrorBody(response, 400).message).toMatch(/not Unicode text/);
    }
    const emoji = ok(await data.mutate([{ create: { _id: 'emoji', _type: 't', a: 'snow \u2603 \ud83d\ude00' } }]));
    expect(emoji.results[0]!.operation).toBe('create');
    expect(ok(await data.doc('emoji')).a).toBe('snow \u2603 \ud83d\ude00');
  });

  it('answers a query nested past the parser limit with 400, at any length', async () => {
    for (const query of [`*[0]${'->'.repeat(20_000)}`, `*[0]${'.a'.repeat(20_000)}`, `${'('.repeat(5_000)}1${')'.repeat(5_000)}`, `1${'+1'.repeat(20_000)}`]) {
      expect(expectErrorBody(await data.query(query), 400).message).toMatch(/nests deeper|syntax/i);
    }
  });
});
