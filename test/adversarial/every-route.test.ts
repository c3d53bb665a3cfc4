import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestUser } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { prototypeSnapshot } from './invariants.ts';
import { deepNesting, hostileKey, hostileString, malformedJson } from './hostile-arbitraries.ts';
import { jsonForSchema, stringForSchema, type RouteSchema } from './schema-arbitraries.ts';
import { scaledRuns } from './fuzz-scale.ts';

// Generated requests to every operation the OpenAPI document lists, built from the operation's
// own schemas (as a schema-driven API fuzzer does): path parameters that name the test's data or
// match the schema or are raw bytes (malformed percent-encoding included), the operation's query
// parameters, bodies its schema allows with hostile values mixed in, and hostile credentials,
// content types and API prefixes (Sanity's versioned ones too). Every answer must come (none may
// stall) with a status below 500, and every 4xx with the standard error body; afterwards the
// prototypes are unchanged, and a fresh login and a write still work. The other adversarial tests
// aim deeper at the data routes; this one reaches every route.
const RUNS = scaledRuns(2000);
/** An answer that has not begun within this long counts as a stalled request. */
const ANSWER_WITHIN_MS = 20_000;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: RouteSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: RouteSchema }> };
}

interface Route {
  method: string;
  /** The OpenAPI path, parameters written `{name}`. */
  path: string;
  operation: Operation;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

interface Generated {
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

describe(`every route under generated hostile requests (${testEngine})`, () => {
  const app = useTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '1000000' });
  let routes: Route[];
  /** Values the test's data has, by path parameter name: requests that name them reach the route's work. */
  let known: Record<string, string[]>;
  let writer: string;
  /** An admin the generated requests cannot name (its id is not among the known values): it signs in afterwards. */
  let checker: TestUser;
  const prototypes = prototypeSnapshot();

  beforeAll(async () => {
    const openapi = await app.request<{ paths: Record<string, Record<string, Operation>> }>('GET', '/api/v1/openapi.json');
    routes = Object.entries(openapi.body.paths).flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })));
    const { slug, id: projectId } = await createProject(app, app.admin);
    const token = await createApiToken(app, app.admin, slug, { permissions: ['read', 'write'] });
    writer = token.token;
    const written = ok(await dataClient(app, writer, slug).mutate([{ createOrReplace: { _id: 'doc-1', _type: 'thing', n: 1 } }, { createOrReplace: { _id: 'drafts.doc-1', _type: 'thing', n: 2 } }]));
    const me = await app.request<{ id: string }>('GET', '/api/v1/users/me', { token: app.admin });
    checker = await createUser(app, app.admin, 'admin');
    known = {
      project: [slug, projectId],
      slug: [slug],
      dataset: ['production'],
      documentId: ['doc-1', 'drafts.doc-1'],
      documentIds: ['doc-1,drafts.doc-1', 'doc-1'],
      revision: [written.transactionId],
      id: [me.body.id, token.id, 'image-abc-10x10-png'],
      ids: [me.body.id, `${me.body.id},me`],
      keys: ['a,b', 'studio.settings'],
      file: ['abc-10x10.png', 'abc.txt'],
      '*': ['x', 'a/b'],
    };
  });

  /** One request as sent, the path untouched (malformed escapes reach the server); event streams end at their headers. */
  function send(method: string, { path, headers, body }: Generated): Promise<Answer> {
    const url = new URL(app.url);
    const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: url.hostname, port: url.port, method, path, headers: sent }, (response) => {
        const contentType = String(response.headers['content-type'] ?? '');
        if (contentType.startsWith('text/event-stream')) {
          response.destroy();
          resolve({ status: response.statusCode ?? 0, contentType, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      request.setTimeout(ANSWER_WITHIN_MS, () => request.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: stalled`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  /** The sign-in page is for people: its mistakes (an expired form, a wrong password) are the page again, with the message. */
  const pageForPeople = (route: Route, answer: Answer) => route.path === '/login' && answer.contentType.startsWith('text/html');

  function expectHandled(route: Route, answer: Answer, what: string): void {
    expect(answer.status, `${what} -> ${answer.body.slice(0, 300)}`).toBeLessThan(500);
    if (answer.status < 400 || pageForPeople(route, answer)) return;
    expect(answer.contentType, `${what} -> ${answer.body.slice(0, 300)}`).toContain('application/json');
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    expect(body.statusCode, what).toBe(answer.status);
    expect(typeof body.error, what).toBe('string');
    expect(typeof body.message, what).toBe('string');
  }

  /** Percent-encoded as a client would (a lone surrogate cannot be: it becomes U+FFFD; its raw bytes are among the raw values). */
  const encode = (value: string) => encodeURIComponent(value.toWellFormed());
  const RAW_SEGMENTS = ['%', '%ZZ', '%00', '%2e%2e', '..', '.', '%c0%ae', '%ff', '%ed%a0%80', 'a,b,,c', 'x'.repeat(9000), '__proto__', 'constructor'];

  function pathValue(name: string, schema: RouteSchema | undefined): fc.Arbitrary<string> {
    const ours = known[name] ?? [];
    return fc.oneof(
      { weight: ours.length > 0 ? 8 : 0, arbitrary: fc.constantFrom(...(ours.length > 0 ? ours : [''])).map(encode) },
      { weight: 3, arbitrary: fc.oneof(stringForSchema(schema ?? {}), hostileString, hostileKey).map(encode) },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    );
  }

  /** A query parameter's value as text: strings as they are, anything else as its JSON. */
  function queryValue(schema: RouteSchema | undefined): fc.Arbitrary<string> {
    const type = schema?.type;
    if (type === 'string' && !schema?.enum) return stringForSchema(schema!);
    return jsonForSchema(schema).map((json) => (json.startsWith('"') ? (JSON.parse(json) as string) : json));
  }

  function generatedRequest(route: Route): fc.Arbitrary<Generated> {
    const parameters = route.operation.parameters ?? [];
    const schemaOf = (name: string) => parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema;
    const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
    const jsonBody = route.operation.requestBody?.content?.['application/json']?.schema;
    const anyBody = fc.oneof(malformedJson, deepNesting, fc.constant(''), jsonForSchema(undefined));
    const body = jsonBody ? fc.oneof({ weight: 6, arbitrary: jsonForSchema(jsonBody) }, { weight: 1, arbitrary: anyBody }) : anyBody;
    const contentType = fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      { weight: 1, arbitrary: fc.constantFrom('application/json; charset=latin1', 'text/plain', 'application/x-ndjson', 'multipart/form-data; boundary=x', 'image/png', 'application/octet-stream', '') },
    );
    const query = fc.tuple(
      fc.tuple(...queryParameters.map((parameter) => fc.option(queryValue(parameter.schema).map((value) => [parameter.name, value] as const), { nil: undefined }))),
      fc.array(fc.tuple(hostileKey, hostileString), { maxLength: 1 }),
    );
    const credential = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom<() => string | undefined>(() => `Bearer ${app.admin}`, () => `Bearer ${writer}`) },
      { weight: 1, arbitrary: fc.constantFrom<() => string | undefined>(() => undefined, () => 'Bearer x.y.z', () => 'Basic YTpi', () => 'Bearer') },
    );
    const project = fc.oneof({ weight: 6, arbitrary: fc.constant(() => known.slug![0]) }, { weight: 1, arbitrary: fc.constantFrom(() => undefined, () => '__proto__', () => 'no-such-project') });
    const prefix = fc.oneof({ weight: 6, arbitrary: fc.constant('/api/v1') }, { weight: 3, arbitrary: fc.constantFrom('/v2021-06-07', '/v2025-02-19') }, { weight: 1, arbitrary: fc.constantFrom('/v1', '/vX', '/v2021-13-45') });

    return fc
      .record({
        values: fc.tuple(...pathNames.map((name) => pathValue(name, schemaOf(name)))),
        query,
        credential,
        project,
        contentType,
        body,
        prefix,
      })
      .map(({ values, query: [listed, unlisted], credential: authorization, project: projectName, contentType: type, body: text, prefix: versioned }) => {
        let next = 0;
        const pairs = [...listed.filter((pair) => pair !== undefined), ...unlisted];
        const search = pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join('&')}`;
        const path = route.path.replace(/\{[^}]+\}/g, () => values[next++]!).replace(/^\/api\/v1/, versioned) + search;
        const headers: Record<string, string> = {};
        const credentialText = authorization();
        if (credentialText !== undefined) headers.authorization = credentialText;
        const projectText = projectName();
        if (projectText !== undefined) headers['x-project'] = projectText;
        const withBody = route.method !== 'GET';
        if (withBody && type !== '') headers['content-type'] = type;
        return { path, headers, body: withBody ? text : undefined };
      });
  }

  it('answers every generated request to every route, below 500 and with the standard error body', async () => {
    const request = fc.constantFrom(...routes).chain((route) => generatedRequest(route).map((generated) => ({ route, generated })));
    await fc.assert(
      fc.asyncProperty(request, async ({ route, generated }) => {
        const answer = await send(route.method, generated);
        const shown = `${route.method} ${generated.path.slice(0, 300)} [${generated.headers['content-type'] ?? ''}] ${(generated.body ?? '').slice(0, 300)}`;
        expectHandled(route, answer, shown);
      }),
      { numRuns: RUNS },
    );

    expect(prototypeSnapshot()).toEqual(prototypes);
    for (const proto of [Object.prototype, Array.prototype]) expect(Object.keys(proto)).toEqual([]);
    // As an admin they could not name (they may have changed the first admin's password), in a new
    // project (they may have renamed the test's own or dropped its datasets).
    const admin = await app.login(checker.email, checker.password);
    expect(admin).toEqual(expect.any(String));
    const fresh = await createProject(app, admin);
    const written = await dataClient(app, admin, fresh.slug).mutate([{ createOrReplace: { _id: 'canary', _type: 'thing', at: Date.now() } }]);
    expect(written.status).toBe(200);
  });
});
