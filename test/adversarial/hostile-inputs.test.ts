import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type ApiResponse } from '../helpers/test-app.ts';
import { createApiToken, createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { listenUrl, openListenSocket } from '../helpers/listen.ts';
import { prototypeSnapshot } from './invariants.ts';
import { scaledRuns } from './fuzz-scale.ts';
import { deepNesting, documentId, hostileDocument, hostileJson, plainJson, hostileKey, hostileNumber, hostilePath, hostileString, malformedJson, type JsonText } from './hostile-arbitraries.ts';

// Generated hostile requests through every mutation kind and patch operation, every action type,
// imports, queries and listeners (image parameters: assets-hardening.test.ts). After every
// request: no 5xx, the standard error body on every 4xx; after every batch: Object.prototype and
// the other built-in prototypes unchanged, a fresh login and a fresh write still work. The server
// runs in this process, so a crash would end the test run.
const RUNS = { mutations: scaledRuns(150), actions: scaledRuns(120), queries: scaledRuns(120), history: scaledRuns(60), imports: scaledRuns(30), listeners: scaledRuns(40), messages: scaledRuns(40) };

describe(`hostile inputs (${testEngine})`, () => {
  const app = useTestApp();
  let writer: string;
  let slug: string;
  const prototypes = prototypeSnapshot();

  beforeAll(async () => {
    slug = (await createProject(app, app.admin)).slug;
    writer = (await createApiToken(app, app.admin, slug, { permissions: ['read', 'write'] })).token;
    ok(await dataClient(app, writer, slug).mutate([{ createOrReplace: { _id: 'doc-1', _type: 'thing', items: [{ _key: 'a', n: 1 }], n: 1, text: 'hello' } }]));
  });

  function expectHandled(response: ApiResponse, what: string): void {
    expect(response.status, `${what} -> ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(500);
    if (response.status >= 400) {
      const body = response.body as Record<string, unknown>;
      expect(typeof body, what).toBe('object');
      expect(body.statusCode, what).toBe(response.status);
      expect(typeof body.error, what).toBe('string');
      expect(typeof body.message, what).toBe('string');
    }
  }

  async function invariantsHold(): Promise<void> {
    expect(prototypeSnapshot()).toEqual(prototypes);
    for (const proto of [Object.prototype, Array.prototype]) expect(Object.keys(proto)).toEqual([]);
    expect(await app.login()).toEqual(expect.any(String));
    const written = await dataClient(app, writer, slug).mutate([{ createOrReplace: { _id: 'canary', _type: 'thing', at: Date.now() } }]);
    expect(written.status).toBe(200);
  }

  const post = (path: string, rawBody: string, token = writer, contentType = 'application/json') =>
    app.request(`POST`, `/api/v1${path}`, { token, rawBody, headers: { 'content-type': contentType, 'x-project': slug } });
  const get = (path: string, token = writer) => app.request('GET', `/api/v1${path}`, { token, headers: { 'x-project': slug } });

  const value = fc.oneof({ weight: 4, arbitrary: plainJson }, { weight: 1, arbitrary: hostileJson });
  const patchOperation: fc.Arbitrary<JsonText> = fc.oneof(
    fc.tuple(fc.constantFrom('set', 'setIfMissing'), hostilePath, value).map(([op, path, value]) => `"${op}":{${JSON.stringify(path)}:${value}}`),
    fc.tuple(fc.constantFrom('inc', 'dec'), hostilePath, fc.oneof(hostileNumber.map(String), value)).map(([op, path, amount]) => `"${op}":{${JSON.stringify(path)}:${amount}}`),
    fc.array(hostilePath, { maxLength: 3 }).map((paths) => `"unset":${JSON.stringify(paths)}`),
    fc.tuple(fc.constantFrom('before', 'after', 'replace'), hostilePath, fc.array(value, { maxLength: 3 })).map(([at, path, items]) => `"insert":{"${at}":${JSON.stringify(path)},"items":[${items.join(',')}]}`),
    fc.tuple(hostilePath, hostileString).map(([path, patch]) => `"diffMatchPatch":{${JSON.stringify(path)}:${JSON.stringify(patch)}}`),
    hostileString.map((revision) => `"ifRevisionID":${JSON.stringify(revision)},"set":{"n":2}`),
  );

  const mutation: fc.Arbitrary<JsonText> = fc.oneof(
    { weight: 1, arbitrary: hostileDocument.map((document) => `{"create":${document}}`) },
    fc.tuple(fc.constantFrom('createOrReplace', 'createIfNotExists'), hostileDocument).map(([kind, document]) => `{"${kind}":${document}}`),
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom('"doc-1"', '"doc-1"', '"doc-1"', '"missing"'), patchOperation).map(([id, operation]) => `{"patch":{"id":${id},${operation}}}`) },
    documentId.map((id) => `{"delete":{"id":${JSON.stringify(id)}}}`),
    deepNesting.map((deep) => `{"create":{"_type":"thing","deep":${deep}}}`),
    hostileKey.map((key) => `{${JSON.stringify(key)}:{"_type":"thing"}}`),
  );

  it('answers every generated mutation, of every kind and patch operation, with a status below 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 2 }), fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(hostileString, fc.constantFrom('doc-1-rev', 'tx-a')) }), async (mutations, transactionId) => {
        const body = `{"mutations":[${mutations.join(',')}]${transactionId === undefined ? '' : `,"transactionId":${JSON.stringify(transactionId)}`}}`;
        expectHandled(await post('/data/mutate/production', body), body.slice(0, 500));
        await invariantsHold();
      }),
      { numRuns: RUNS.mutations },
    );
  });

  it('answers malformed and oversized mutation bodies with a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(malformedJson, async (text) => {
        expectHandled(await post('/data/mutate/production', text), text);
        await invariantsHold();
      }),
      { numRuns: 30 },
    );
  });

  // Actions on doc-1 (published, and its draft once an edit makes it), a missing document, and ids
  // the rules refuse (drafts., versions., hostile), with hostile documents, patches and revisions.
  const A = 'sanity.action.document.';
  const publishedId = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('"doc-1"', '"doc-1"', '"missing"') },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom('"drafts.doc-1"', '"versions.r.doc-1"'), documentId.map((id) => JSON.stringify(id)), hostileJson) },
  );
  const revision = fc.oneof({ weight: 3, arbitrary: fc.constant('') }, hostileString.map((rev) => `,"ifPublishedRevisionId":${JSON.stringify(rev)}`), hostileJson.map((rev) => `,"ifDraftRevisionId":${rev}`));
  const action: fc.Arbitrary<JsonText> = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(fc.constantFrom('doc-1', 'doc-1', 'missing'), patchOperation).map(([id, operation]) => `{"actionType":"${A}edit","publishedId":"${id}","draftId":"drafts.${id}","patch":{${operation}}}`) },
    fc.tuple(publishedId, hostileDocument, fc.constantFrom('', ',"ifExists":"ignore"', ',"ifExists":7')).map(([id, document, ifExists]) => `{"actionType":"${A}create","publishedId":${id},"attributes":${document}${ifExists}}`),
    fc.tuple(publishedId, hostileDocument).map(([id, document]) => `{"actionType":"${A}replaceDraft","publishedId":${id},"attributes":${document}}`),
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('publish', 'unpublish'), fc.constantFrom('doc-1', 'doc-1', 'missing'), revision).map(([type, id, check]) => `{"actionType":"${A}${type}","publishedId":"${id}","draftId":"drafts.${id}"${type === 'publish' ? check : ''}}`) },
    fc.tuple(fc.constantFrom('publish', 'unpublish'), publishedId, hostileJson).map(([type, id, draft]) => `{"actionType":"${A}${type}","publishedId":${id},"draftId":${draft}}`),
    fc.tuple(fc.constantFrom('discard","draftId', 'version.discard","versionId'), documentId).map(([field, id]) => `{"actionType":"${A}${field}":${JSON.stringify(id)}}`),
    fc.tuple(publishedId, hostileJson).map(([id, drafts]) => `{"actionType":"${A}delete","publishedId":${id},"includeDrafts":${drafts}}`),
    fc.tuple(fc.constantFrom('version.create","publishedId":"doc-1', 'version.replace'), hostileDocument).map(([type, document]) => `{"actionType":"${A}${type}","document":${document}}`),
    fc.tuple(hostileString, hostileKey, hostileJson).map(([type, key, value]) => `{"actionType":${JSON.stringify(type)},${JSON.stringify(key)}:${value}}`),
    hostileJson,
  );

  it('answers every generated action, of every type, with a status below 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 2 }), fc.constantFrom('', ',"dryRun":true', ',"transactionId":"tx-actions"'), async (actions, options) => {
        const body = `{"actions":[${actions.join(',')}]${options}}`;
        expectHandled(await post('/data/actions/production', body), body.slice(0, 500));
        await invariantsHold();
      }),
      { numRuns: RUNS.actions },
    );
  });

  const groqValue: fc.Arbitrary<string> = fc.oneof(
    hostileKey.map((key) => `{${JSON.stringify(key)}: 1, "b": $p}`),
    hostileKey.map((key) => `*[_type == "thing"]{${JSON.stringify(key)}: n, "inherited": ${JSON.stringify(key)}}`),
    hostileKey.map((key) => `*[defined(${/^[A-Za-z_]\w*$/.test(key) ? key : 'n'})]._id`),
    hostileKey.map((key) => `$p[${JSON.stringify(key)}]`),
    hostileString.map((pattern) => `*[text match ${JSON.stringify(pattern)}]._id`),
    hostileString.map((text) => `dateTime(${JSON.stringify(text)})`),
    fc.constantFrom('*[text == $p]._id', '*[_id == $p][0]', '*[n > $p]._id', '*[text match $p]._id', '*[_type == "thing" && items[0].n == $p]', '*[references($p)]._id', '*[_id in $p]._id', '$p.__proto__', '$p.constructor.prototype', '*[constructor.prototype == 1]', 'count(*[]{...}[])', '*[0]->->->', '{...$p, "x": 1}', 'math::sum($p)', 'array::unique($p)'),
    malformedJson,
  );

  it('answers every generated query with its parameters, by POST and by GET, with a status below 500', async () => {
    await fc.assert(
      fc.asyncProperty(groqValue, hostileJson, async (query, params) => {
        const posted = await post('/data/query/production', `{"query":${JSON.stringify(query)},"params":{"p":${params}}}`);
        expectHandled(posted, `POST ${query} with ${params}`);
        const got = await get(`/data/query/production?query=${encodeURIComponent(query)}&$p=${encodeURIComponent(params)}`);
        expectHandled(got, `GET ${query} with ${params}`);
        await invariantsHold();
      }),
      { numRuns: RUNS.queries },
    );
  });

  it('answers queries whose text or parameters hold NUL characters (PostgreSQL text cannot) with a status below 500', async () => {
    const queries = ['*[text match "\\u0000"]._id', '*[text match "a\\u0000b*"]._id', '*[text == "\\u0000"]._id', '*[text match $p]._id', '*[text == $p]._id', '*[_id in [$p]]._id', '*[_type == $p]._id', '*[_id > $p][0..2]._id', '*[_type > $p][0..2]._id', '*[text > $p][0..2]._id', '*[_id in path($p)]._id', '*[_id in path("a\\u0000.**")]._id', '*[references($p)]._id', '*[_id == "doc-1"]{"r": *[references(^.text + $p)]._id}'];
    for (const query of queries) {
      const response = await post('/data/query/production', JSON.stringify({ query, params: { p: 'he\u0000llo' } }));
      expectHandled(response, query);
      expect(response.status, query).toBe(200);
    }
  });

  it('answers every generated history request (transactions, documents at a point) with a status below 500', async () => {
    const parameter = fc.tuple(
      fc.constantFrom('authors', 'fromTransaction', 'toTransaction', 'fromTime', 'toTime', 'limit', 'reverse', 'effectFormat', 'excludeContent', 'revision', 'time', 'lastRevision', '__proto__', 'constructor'),
      fc.oneof(hostileString, hostileNumber.map(String)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('transactions', 'documents'), fc.array(documentId, { minLength: 1, maxLength: 3 }), fc.array(parameter, { maxLength: 3 }), async (route, ids, parameters) => {
        const pairs: [string, string][] = route === 'documents' && parameters.length === 0 ? [['lastRevision', 'true']] : parameters;
        const search = new URLSearchParams(pairs);
        const path = `/data/history/production/${route}/${encodeURIComponent(ids.join(',').toWellFormed())}?${search}`;
        // NDJSON: read as text, each line parsed.
        const answer = await fetch(`${app.url}/api/v1${path}`, { headers: { authorization: `Bearer ${writer}`, 'x-project': slug } });
        const text = await answer.text();
        expectHandled({ status: answer.status, headers: answer.headers, body: answer.status === 200 ? text : JSON.parse(text) }, path);
        // A failure once lines are sent is the body's last line; the first round is read before.
        if (answer.status === 200 && route === 'transactions') {
          for (const line of text.split('\n').filter(Boolean)) expect(Object.keys(JSON.parse(line) as object), path).not.toContain('error');
        }
        await invariantsHold();
      }),
      { numRuns: RUNS.history },
    );
  });

  it('answers text holding U+0000 anywhere a route stores or looks it up with a status below 500', async () => {
    const nul = 'a\u0000b';
    const requests: [string, string, unknown][] = [
      ['GET', `/projects/${encodeURIComponent(nul)}`, undefined],
      ['GET', `/data/query/production?query=*%5B0%5D&project=${encodeURIComponent(nul)}`, undefined],
      ['GET', `/data/history/production/transactions/doc-1?authors=${encodeURIComponent(nul)}`, undefined],
      ['GET', `/data/history/production/transactions/doc-1?fromTransaction=${encodeURIComponent(nul)}`, undefined],
      ['GET', `/data/history/production/documents/doc-1?revision=${encodeURIComponent(nul)}`, undefined],
      ['POST', '/projects', { name: nul, slug: 'nul-in-name' }],
      ['POST', '/users', { email: 'nul@example.com', name: nul, password: 'a-long-password-1', role: 'viewer' }],
    ];
    for (const [method, path, body] of requests) {
      const response = await app.request(method, `/api/v1${path}`, { token: app.admin, headers: { 'x-project': slug }, ...(body === undefined ? {} : { body }) });
      expectHandled(response, `${method} ${path}`);
    }
    await invariantsHold();
  });

  it('answers every generated import, as NDJSON and as a JSON array, with a status below 500', async () => {
    const line = fc.oneof(hostileDocument, deepNesting.map((deep) => `{"_type":"thing","deep":${deep}}`), malformedJson, hostileJson);
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 6 }), fc.boolean(), fc.boolean(), async (lines, asArray, replace) => {
        const body = asArray ? `[${lines.join(',')}]` : lines.join('\n');
        const type = asArray ? 'application/json' : 'application/x-ndjson';
        const response = await post(`/data/import/production${replace ? '?replace=true' : ''}`, body, app.admin, type);
        expectHandled(response, body.slice(0, 500));
        await invariantsHold();
      }),
      { numRuns: RUNS.imports },
    );
  });

  it('answers every generated listener request with a stream or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(groqValue, hostileJson, async (filter, params) => {
        const controller = new AbortController();
        const url = `${app.url}/api/v1/data/listen/production?query=${encodeURIComponent(`*[${filter}]`)}&$p=${encodeURIComponent(params)}`;
        const response = await fetch(url, { headers: { authorization: `Bearer ${writer}`, 'x-project': slug }, signal: controller.signal });
        if (response.status === 200) {
          expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
          controller.abort();
        } else {
          expectHandled({ status: response.status, headers: response.headers, body: await response.json() }, url);
        }
        await invariantsHold();
      }),
      { numRuns: RUNS.listeners },
    );
  });

  it('answers every generated listener message on a WebSocket with an error message or a welcome, keeping the socket', async () => {
    const socket = await openListenSocket(listenUrl(app, 'production', `?project=${slug}&access_token=${writer}`));
    try {
      const message = fc.oneof(
        malformedJson,
        hostileJson,
        fc.tuple(groqValue, hostileJson).map(([filter, params]) => `{"type":"subscribe","query":${JSON.stringify(`*[${filter}]`)},"params":${params}}`),
        hostileKey.map((key) => `{"type":${JSON.stringify(key)}}`),
      );
      await fc.assert(
        fc.asyncProperty(message, async (text) => {
          socket.send(text);
          socket.send({ type: 'ping' });
          const reply = await socket.messages.take((m) => m.type === 'error' || m.type === 'welcome' || m.type === 'pong');
          if (reply.type === 'error') expect(reply).toMatchObject({ statusCode: expect.any(Number), error: expect.any(String), message: expect.any(String) });
          if (reply.type === 'error') expect(reply.statusCode as number).toBeLessThan(500);
          await socket.messages.take((m) => m.type === 'pong').catch(() => undefined);
          await invariantsHold();
        }),
        { numRuns: RUNS.messages },
      );
    } finally {
      await socket.close();
    }
  });
});
