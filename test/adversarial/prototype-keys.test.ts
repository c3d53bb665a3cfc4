import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { ADMIN_EMAIL, JWT_SECRET, expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { prototypeSnapshot } from './invariants.ts';

/** Keys from a request are data: they never reach Object.prototype (docs/decisions.md). */
describe(`request keys never reach a prototype (${testEngine})`, () => {
  const app = useTestApp();
  let data: ReturnType<typeof dataClient>;
  let slug: string;
  const before = prototypeSnapshot();

  beforeAll(async () => {
    const project = await createProject(app, app.admin);
    slug = project.slug;
    const writer = await createApiToken(app, app.admin, slug, { permissions: ['read', 'write'] });
    data = dataClient(app, writer.token, slug);
    ok(await data.mutate([{ createOrReplace: { _id: 'doc1', _type: 'post', arr: [{ _key: 'a', x: 1 }], title: 'kept' } }]));
  });
  afterEach(() => {
    expect(prototypeSnapshot()).toEqual(before);
  });

  const pollutingPatches: Record<string, unknown>[] = [
    { unset: ['__proto__.hasOwnProperty'] },
    { unset: ['["__proto__"].hasOwnProperty'] },
    { set: { '__proto__.pp': 1 } },
    { setIfMissing: { '__proto__.pp': 1 } },
    { set: { '["__proto__"].pp': 1 } },
    { set: { "['__proto__'].pp": 1 } },
    { set: { 'arr[0].__proto__.pp': 1 } },
    { set: { 'arr[_key=="a"].__proto__.pp': 1 } },
    { set: { '["__proto__"].clockTolerance': 1e9 } },
    { set: { '__proto__.toString': 'x' } },
    { set: { '__proto__.access': 'public' } },
    { set: { 'constructor.prototype.pp': 1 } },
    { inc: { '__proto__.pp': 1 } },
    { diffMatchPatch: { '__proto__.pp': '@@ -0,0 +1,1 @@\n+x\n' } },
    { insert: { after: '__proto__.list[-1]', items: [1] } },
  ];

  it.each(pollutingPatches.map((operations) => [JSON.stringify(operations), operations]))('refuses the patch %s with 400 and changes nothing', async (_name, operations) => {
    const response = await data.mutate([{ patch: { id: 'doc1', ...operations } }]);
    expect(expectErrorBody(response, 400).message).toMatch(/__proto__|prototype/);
    expect(ok(await data.doc('doc1'))).toMatchObject({ _id: 'doc1', title: 'kept', arr: [{ _key: 'a', x: 1 }] });
  });

  it('keeps answering logins and document reads after every attempt', async () => {
    for (const operations of pollutingPatches) await data.mutate([{ patch: { id: 'doc1', ...operations } }]);
    expect(await app.login()).toEqual(expect.any(String));
    expect(ok(await data.doc('doc1'))._id).toBe('doc1');
  });

  it('still refuses an expired access token after a clockTolerance attempt', async () => {
    await data.mutate([{ patch: { id: 'doc1', set: { '["__proto__"].clockTolerance': 1e9 } } }]);
    const expired = await new SignJWT({ email: ADMIN_EMAIL, role: 'admin', type: 'access' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(decodeJwt(app.admin).sub!)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(JWT_SECRET));
    expectErrorBody(await app.request('GET', '/api/v1/users/me', { token: expired }), 401);
  });

  it('refuses __proto__ in a document body and in a GET parameter', async () => {
    const body = '{"mutations":[{"create":{"_type":"post","__proto__":{"pp":1}}}]}';
    expectErrorBody(await app.request('POST', '/api/v1/data/mutate/production', { token: app.admin, rawBody: body, headers: { 'content-type': 'application/json', 'x-project': slug } }), 400);
    const param = encodeURIComponent('{"__proto__":{"pp":1}}');
    expectErrorBody(await app.request('GET', `/api/v1/data/query/production?query=$p&$p=${param}`, { token: app.admin, headers: { 'x-project': slug } }), 400);
  });

  it('stores, returns, queries and patches inherited names as ordinary attributes', async () => {
    const names = { constructor: { a: 1 }, prototype: 2, toString: 'text', hasOwnProperty: [1], valueOf: null, isPrototypeOf: { prototype: 1 } };
    ok(await data.mutate([{ createOrReplace: { _id: 'names', _type: 'post', ...names } }]));
    expect(ok(await data.doc('names'))).toMatchObject(names);
    const queried = ok(await data.query<Record<string, unknown>>('*[_id == "names"][0]{constructor, prototype, toString, hasOwnProperty, valueOf, isPrototypeOf}'));
    expect(queried.result).toEqual(names);

    ok(await data.mutate([{ createOrReplace: { _id: 'plain', _type: 'post' } }]));
    ok(
      await data.mutate([
        {
          patch: {
            id: 'plain',
            set: { 'toString.x': 1, 'valueOf': 'v' },
            setIfMissing: { hasOwnProperty: 'set because absent', constructor: 7 },
            inc: { isPrototypeOf: 1 },
          },
        },
      ]),
    );
    const plain = ok(await data.doc('plain'));
    expect(plain).toMatchObject({ toString: { x: 1 }, valueOf: 'v', hasOwnProperty: 'set because absent', constructor: 7 });
    expect(Object.hasOwn(plain, 'isPrototypeOf')).toBe(false);
    ok(await data.mutate([{ patch: { id: 'plain', unset: ['toString', 'constructor'] } }]));
    const unset = ok(await data.doc('plain'));
    expect(Object.hasOwn(unset, 'toString')).toBe(false);
    expect(Object.hasOwn(unset, 'constructor')).toBe(false);
  });

  it('lets a parameter named like an inherited property be a parameter', async () => {
    const response = await app.request<{ result: unknown }>('GET', `/api/v1/data/query/production?query=${encodeURIComponent('$constructor')}&$constructor=${encodeURIComponent('"c"')}`, {
      token: app.admin,
      headers: { 'x-project': slug },
    });
    expect(ok(response).result).toBe('c');
  });
});
