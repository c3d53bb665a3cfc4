// A query's answer made of whole documents is sent as the text the documents were read from, not
// serialized again (store/document-index/source/read-text.ts). The text is made to differ from what
// serializing the parsed document gives (`1.50` against `1.5`), so that the answer shows which way
// it was written. SQLite hands the text over; PostgreSQL's driver parses jsonb itself, so there the
// answer is serialized. Anything other than a whole document read (a projection) is serialized.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { testEngine, withConnection } from '../helpers/engine.ts';
import { answerJson, readDocument, StoredJson, verbatimDocument } from '../../src/store/document-index/source/read-text.ts';

const NOW = '2026-01-01T00:00:00.000Z';

describe('the text a query read a document from', () => {
  it('answers a document read from text with that text, and anything else serialized', () => {
    const text = '{"_id":"a","n":1.50,"s":"\\u00e9"}';
    const document = readDocument(text);
    expect(document).toEqual({ _id: 'a', n: 1.5, s: 'é' });
    expect(answerJson(document)).toBe(text);
    // A new object made from it (a projection, a perspective's overlay) is serialized.
    expect(answerJson({ ...(document as object) })).toBe('{"_id":"a","n":1.5,"s":"é"}');
    // Content parsed by the driver (PostgreSQL) is kept as it is, and serialized when answered.
    const parsed = { _id: 'b', n: 2 };
    expect(readDocument(parsed)).toBe(parsed);
    expect(answerJson(parsed)).toBe('{"_id":"b","n":2}');
    expect(answerJson(readDocument('3'))).toBe('3');
    expect(answerJson(undefined)).toBe('null');
  });

  it('writes documents kept unparsed as their text, alone or as an array of them', () => {
    const text = '{"_id":"a","n":1.50}';
    expect(verbatimDocument(text)).toEqual(new StoredJson(text));
    expect(answerJson(verbatimDocument(text))).toBe(text);
    expect(answerJson([verbatimDocument(text), verbatimDocument('{"_id":"b"}')])).toBe(`[${text},{"_id":"b"}]`);
    // Content the driver parsed stays as it is.
    const parsed = { _id: 'b' };
    expect(verbatimDocument(parsed)).toBe(parsed);
  });
});

describe(`query answers of whole documents through HTTP (${testEngine})`, () => {
  const app = useTestApp();
  let projectId: string;

  beforeAll(async () => {
    projectId = (await app.request<{ id: string }>('POST', '/api/v1/projects', { token: app.admin, body: { name: 'Texts', slug: 'texts' } })).body.id;
    const stored = (id: string) => ({ _id: id, _type: 'post', n: 1.5, s: 'é', _rev: 'r', _createdAt: NOW, _updatedAt: NOW });
    await app.services.store.transaction((tx) => tx.documents.putMany(projectId, 'production', [stored('post-1'), stored('post-2')]));
    // The stored text of each, with the number written as 1.50 (the same value).
    const text = (id: string) => JSON.stringify(stored(id)).replace('"n":1.5', '"n":1.50');
    await withConnection(app.db, {
      sqlite: (db) => {
        for (const id of ['post-1', 'post-2']) db.prepare('UPDATE documents SET content = jsonb(?) WHERE project_id = ? AND id = ?').run(text(id), projectId, id);
      },
      postgres: async (client) => {
        for (const id of ['post-1', 'post-2']) await client.query('UPDATE documents SET content = $1::jsonb WHERE project_id = $2 AND id = $3', [text(id), projectId, id]);
      },
    });
  });

  const answer = async (query: string, options: Record<string, string> = {}) => {
    const response = await fetch(`${app.url}/api/v1/data/query/production?${new URLSearchParams({ query, ...options })}`, {
      headers: { authorization: `Bearer ${app.admin}`, 'x-project': 'texts' },
    });
    expect(response.status).toBe(200);
    return response.text();
  };
  const storedNumber = testEngine === 'sqlite' ? '"n":1.50' : '"n":1.5,';

  it('sends a looked-up document as the text it was stored as', async () => {
    const body = await answer('*[_id == "post-1"][0]');
    expect(body).toContain(storedNumber);
    expect(JSON.parse(body).result).toMatchObject({ _id: 'post-1', n: 1.5, s: 'é' });
  });

  it('sends each document of a streamed answer as its stored text', async () => {
    const body = await answer('*[_type == "post"]');
    expect(body.split(storedNumber)).toHaveLength(3);
    expect(JSON.parse(body).result.map((document: { _id: string }) => document._id)).toEqual(['post-1', 'post-2']);
  });

  it('sends a window of documents (a page) as their stored texts', async () => {
    const body = await answer('*[_type == "post"][0...2]');
    expect(body.split(storedNumber)).toHaveLength(3);
    expect(JSON.parse(body).result.map((document: { _id: string }) => document._id)).toEqual(['post-1', 'post-2']);
  });

  it('serializes what the query made of the documents', async () => {
    const body = await answer('*[_id == "post-1"][0]{n, s}');
    expect(body).toContain('"result":{"n":1.5,"s":"é"}');
    // A looked-up document inside a value the query builds is part of that value.
    expect(JSON.parse(await answer('{"post": *[_id == "post-1"][0], "page": *[_type == "post"][0...2]}')).result).toMatchObject({
      post: { _id: 'post-1', n: 1.5 },
      page: [{ _id: 'post-1' }, { _id: 'post-2' }],
    });
  });

  it('answers whole documents in every form a query route gives: explained, in a perspective, ordered', async () => {
    const post = { _id: 'post-1', _type: 'post', n: 1.5, s: 'é' };
    const explained = JSON.parse(await answer('*[_id == "post-1"][0]', { explain: 'true' }));
    expect(explained.result).toEqual({ ...post, _rev: 'r', _createdAt: NOW, _updatedAt: NOW });
    expect(explained.plan).toBeDefined();
    expect(JSON.parse(await answer('*[_id == "post-1"][0]', { perspective: 'published' })).result).toMatchObject(post);
    expect(JSON.parse(await answer('*[_type == "post"] | order(_id desc)[0...2]')).result.map((document: { _id: string }) => document._id)).toEqual(['post-2', 'post-1']);
  });
});
