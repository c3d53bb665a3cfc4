import { beforeAll, describe, expect, it, vi } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { MAX_DOCUMENT_PATHS } from '../../src/content/document-rules.ts';
import { MAX_TRANSACTION_STEPS } from '../../src/content/transactions.ts';

describe(`mutations (${testEngine})`, () => {
  const app = useTestApp();
  let data: ReturnType<typeof dataClient>;
  let projectId: string;
  let projectSlug: string;

  beforeAll(async () => {
    const project = await createProject(app, app.admin);
    projectId = project.id;
    projectSlug = project.slug;
    data = dataClient(app, app.admin, project.slug);
  });

  const revisionsOf = async (baseId: string) => (await app.services.store.revisions.list(projectId, 'production', baseId, 100, 0)).length;

  describe('create', () => {
    it('creates a draft with a generated id when _id is missing, and owns the system fields', async () => {
      const body = ok(await data.mutate([{ create: { _type: 'post', title: 'Hello', _rev: 'fake', _createdAt: '2000-01-01T00:00:00Z' } }]));
      const [result] = body.results;
      expect(result!.operation).toBe('create');
      expect(result!.id).toMatch(/^drafts\.[0-9a-f-]{36}$/);
      const doc = ok(await data.doc(result!.id));
      expect(doc).toMatchObject({ _id: result!.id, _type: 'post', title: 'Hello', _rev: body.transactionId });
      expect(doc._createdAt).not.toBe('2000-01-01T00:00:00Z');
      expect(doc._createdAt).toBe(doc._updatedAt);
    });

    it('names documents, transactions and revisions with ids that sort in the order they were made', async () => {
      // Time-ordered ids keep the index entries of consecutive writes on the same pages.
      const made: { id: string; transactionId: string }[] = [];
      for (let i = 0; i < 12; i++) {
        const body = ok(await data.mutate([{ create: { _type: 'post', n: i } }]));
        made.push({ id: body.results[0]!.id.slice('drafts.'.length), transactionId: body.transactionId });
      }
      const ordered = (ids: string[]) => expect([...ids].sort()).toEqual(ids);
      ordered(made.map((each) => each.id));
      ordered(made.map((each) => each.transactionId));
      const revisionIds = [];
      for (const { id } of made) revisionIds.push(ok(await data.history(`drafts.${id}`)).revisions[0]!.id);
      ordered(revisionIds);
    });

    it('creates with a given _id, and refuses an existing one with 409', async () => {
      expect(ok(await data.mutate([{ create: { _id: 'post-a', _type: 'post' } }])).results).toEqual([{ id: 'post-a', operation: 'create' }]);
      expectErrorBody(await data.mutate([{ create: { _id: 'post-a', _type: 'post' } }]), 409);
    });

    it('writes a revision and a document.create event with the delivery fields', async () => {
      const { transactionId } = ok(await data.mutate([{ create: { _id: 'evented', _type: 'article' } }]));
      const events = (await outboxEvents(app)).filter((event) => event.transactionId === transactionId);
      expect(events).toHaveLength(1);
      expect(events[0]!.payload).toMatchObject({ event: 'document.create', dataset: 'production', documentId: 'evented', documentType: 'article' });
      expect(events[0]!.payload.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(await revisionsOf('evented')).toBe(1);
    });
  });

  describe('createOrReplace and createIfNotExists', () => {
    it('createOrReplace reports create, then update, keeping _createdAt and replacing the content', async () => {
      expect(ok(await data.mutate([{ createOrReplace: { _id: 'cor', _type: 'post', a: 1 } }])).results[0]!.operation).toBe('create');
      const first = ok(await data.doc('cor'));
      expect(ok(await data.mutate([{ createOrReplace: { _id: 'cor', _type: 'post', b: 2 } }])).results[0]!.operation).toBe('update');
      const second = ok(await data.doc('cor'));
      expect(second).toMatchObject({ b: 2, _createdAt: first._createdAt });
      expect(second.a).toBeUndefined();
    });

    it('createIfNotExists creates once, then reports none and changes nothing', async () => {
      expect(ok(await data.mutate([{ createIfNotExists: { _id: 'cine', _type: 'post', v: 1 } }])).results[0]!.operation).toBe('create');
      const { transactionId, results } = ok(await data.mutate([{ createIfNotExists: { _id: 'cine', _type: 'post', v: 2 } }]));
      expect(results[0]!.operation).toBe('none');
      expect(ok(await data.doc('cine')).v).toBe(1);
      expect((await outboxEvents(app)).filter((event) => event.transactionId === transactionId)).toEqual([]);
    });
  });

  describe('patch', () => {
    it('applies set, setIfMissing, unset, inc and dec with paths', async () => {
      await data.mutate([
        {
          create: {
            _id: 'patched',
            _type: 'post',
            count: 10,
            stock: 5,
            old: true,
            meta: { tags: ['a'] },
            body: [
              { _key: 'k1', text: 'one' },
              { _key: 'k2', text: 'two' },
            ],
          },
        },
      ]);
      const result = ok(
        await data.mutate([
          {
            patch: {
              id: 'patched',
              set: { title: 'New', 'meta.author.name': 'Ann', 'body[_key=="k2"].text': 'TWO', 'meta.tags[0]': 'z' },
              setIfMissing: { title: 'ignored', subtitle: 'Sub' },
              unset: ['old', 'body[0]'],
              inc: { count: 5 },
              dec: { stock: 2 },
            },
          },
        ]),
      );
      expect(result.results).toEqual([{ id: 'patched', operation: 'update' }]);
      const doc = ok(await data.doc('patched'));
      expect(doc).toMatchObject({
        title: 'New',
        subtitle: 'Sub',
        count: 15,
        stock: 3,
        meta: { tags: ['z'], author: { name: 'Ann' } },
        body: [{ _key: 'k2', text: 'TWO' }],
      });
      expect(doc.old).toBeUndefined();
      expect(doc._rev).toBe(result.transactionId);
    });

    it('applies set before setIfMissing before unset before inc, as Sanity does', async () => {
      await data.mutate([{ create: { _id: 'ordered', _type: 'post' } }]);
      await data.mutate([{ patch: { id: 'ordered', inc: { n: 1 }, setIfMissing: { n: 10 }, set: { gone: 1 }, unset: ['gone'] } }]);
      const doc = ok(await data.doc('ordered'));
      expect(doc.n).toBe(11);
      expect(doc.gone).toBeUndefined();
    });

    it('inserts before, after and replacing array items', async () => {
      await data.mutate([{ create: { _id: 'list', _type: 'post', items: ['b'], empty: [] } }]);
      await data.mutate([
        { patch: { id: 'list', insert: { before: 'items[0]', items: ['a'] } } },
        { patch: { id: 'list', insert: { after: 'items[-1]', items: ['c', 'd'] } } },
        { patch: { id: 'list', insert: { replace: 'items[1]', items: ['B'] } } },
        { patch: { id: 'list', insert: { after: 'empty[-1]', items: [1] } } },
      ]);
      expect(ok(await data.doc('list'))).toMatchObject({ items: ['a', 'B', 'c', 'd'], empty: [1] });
    });

    it('answers 404 for a missing document and writes nothing of the transaction', async () => {
      const before = (await outboxEvents(app)).length;
      const response = await data.mutate([{ create: { _id: 'never', _type: 'post' } }, { patch: { id: 'missing-doc', set: { a: 1 } } }]);
      expect(expectErrorBody(response, 404).message).toContain('missing-doc');
      expectErrorBody(await data.doc('never'), 404);
      expect(await revisionsOf('never')).toBe(0);
      expect((await outboxEvents(app)).length).toBe(before);
    });

    it('checks ifRevisionID: 409 on a stale revision, success on the current one', async () => {
      const { transactionId } = ok(await data.mutate([{ create: { _id: 'guarded', _type: 'post', v: 1 } }]));
      expectErrorBody(await data.mutate([{ patch: { id: 'guarded', ifRevisionID: 'stale', set: { v: 2 } } }]), 409);
      expect(ok(await data.mutate([{ patch: { id: 'guarded', ifRevisionID: transactionId, set: { v: 2 } } }])).results[0]!.operation).toBe('update');
      expect(ok(await data.doc('guarded')).v).toBe(2);
    });

    it('lets exactly one of several concurrent patches with the same ifRevisionID win', async () => {
      const { transactionId } = ok(await data.mutate([{ create: { _id: 'race', _type: 'post', n: 0 } }]));
      const responses = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => data.mutate([{ patch: { id: 'race', ifRevisionID: transactionId, set: { n } } }])),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      expect(responses.filter((r) => r.status === 409)).toHaveLength(4);
      expect(await revisionsOf('race')).toBe(2);
    });

    it('serializes concurrent increments without losing one', async () => {
      await data.mutate([{ create: { _id: 'counter', _type: 'post', n: 0 } }]);
      await Promise.all(Array.from({ length: 10 }, () => data.mutate([{ patch: { id: 'counter', inc: { n: 1 } } }])));
      expect(ok(await data.doc('counter')).n).toBe(10);
    });

    it.each([
      [{ patch: { id: 'patched', inc: { title: 1 } } }, 'not a number'],
      [{ patch: { id: 'patched', inc: { count: 'x' } } }, 'must be a number'],
      [{ patch: { id: 'patched', set: { _id: 'other' } } }, '_id'],
      [{ patch: { id: 'patched', unset: ['_type'] } }, '_type'],
      [{ patch: { id: 'patched', set: { _type: '' } } }, '_type'],
      [{ patch: { id: 'patched', set: { 'a..b': 1 } } }, 'path'],
      [{ patch: { id: 'patched', unset: 'title' } }, 'unset'],
      [{ patch: { id: 'patched', replace: {} } }, 'unknown key'],
      [{ patch: { set: { a: 1 } } }, 'id'],
      [{ patch: { id: 'patched', insert: { items: [1] } } }, 'before, after, replace'],
      [{ patch: { id: 'patched', insert: { after: 'body', items: [1] } } }, 'array element'],
    ])('answers 400 for %j', async (mutation, text) => {
      expect(expectErrorBody(await data.mutate([mutation]), 400).message).toContain(text);
    });
  });

  describe('delete', () => {
    it('deletes and reports delete, then none; emits document.delete', async () => {
      await data.mutate([{ create: { _id: 'doomed', _type: 'post' } }]);
      const { transactionId, results } = ok(await data.mutate([{ delete: { id: 'doomed' } }]));
      expect(results).toEqual([{ id: 'doomed', operation: 'delete' }]);
      expectErrorBody(await data.doc('doomed'), 404);
      const events = (await outboxEvents(app)).filter((event) => event.transactionId === transactionId);
      expect(events.map((event) => event.event)).toEqual(['document.delete']);
      expect(ok(await data.mutate([{ delete: { id: 'doomed' } }])).results[0]!.operation).toBe('none');
    });
  });

  describe('transactions', () => {
    it('applies several mutations atomically, in order, with one revision and one event per document', async () => {
      const { transactionId, results } = ok(
        await data.mutate([
          { create: { _id: 'tx-a', _type: 'post', n: 1 } },
          { patch: { id: 'tx-a', inc: { n: 1 } } },
          { create: { _id: 'tx-b', _type: 'post' } },
        ]),
      );
      expect(results.map((r) => r.operation)).toEqual(['create', 'update', 'create']);
      expect(ok(await data.doc('tx-a')).n).toBe(2);
      const events = (await outboxEvents(app)).filter((event) => event.transactionId === transactionId);
      expect(events.map((event) => `${event.event} ${event.documentId}`)).toEqual(['document.create tx-a', 'document.create tx-b']);
      expect(await revisionsOf('tx-a')).toBe(1);
    });

    it('leaves no trace when the last mutation fails: no document, no revision, no event', async () => {
      const before = (await outboxEvents(app)).length;
      const response = await data.mutate([
        { create: { _id: 'atomic-1', _type: 'post' } },
        { createOrReplace: { _id: 'atomic-2', _type: 'post' } },
        { create: { _id: 'atomic-1', _type: 'post' } },
      ]);
      expectErrorBody(response, 409);
      expectErrorBody(await data.doc('atomic-1'), 404);
      expectErrorBody(await data.doc('atomic-2'), 404);
      expect(await revisionsOf('atomic-1')).toBe(0);
      expect((await outboxEvents(app)).length).toBe(before);
    });

    it('does not record a document created and deleted in the same transaction', async () => {
      const { transactionId } = ok(await data.mutate([{ create: { _id: 'blink', _type: 'post' } }, { delete: { id: 'blink' } }]));
      expect((await outboxEvents(app)).filter((event) => event.transactionId === transactionId)).toEqual([]);
      expect(await revisionsOf('blink')).toBe(0);
    });

    it('supports returnIds, returnDocuments and dryRun', async () => {
      const returned = ok(await data.mutate([{ create: { _id: 'ret', _type: 'post', x: 1 } }], '?returnIds=true&returnDocuments=true'));
      expect(returned.documentIds).toEqual(['ret']);
      expect(returned.results[0]!.document).toMatchObject({ _id: 'ret', x: 1, _rev: returned.transactionId });
      const before = (await outboxEvents(app)).length;
      const dry = ok(await data.mutate([{ create: { _id: 'dry', _type: 'post' } }], '?dryRun=true'));
      expect(dry.results).toEqual([{ id: 'dry', operation: 'create' }]);
      expectErrorBody(await data.doc('dry'), 404);
      expect((await outboxEvents(app)).length).toBe(before);
    });
  });

  describe('document depth', () => {
    /** `objects` objects nested in one another around a string: a document holding it is one level more. */
    const nested = (objects: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < objects; i++) value = { a: value };
      return value;
    };

    it('stores and queries a document nesting 1,000 levels, and refuses 1,001 with 400, writing nothing', async () => {
      const deepest = { _id: 'deep-ok', _type: 'deep', deep: nested(999) };
      ok(await data.mutate([{ create: deepest }]));
      expect(ok(await data.doc('deep-ok')).deep).toEqual(deepest.deep);
      expect(ok(await data.query('*[_type == "deep" && defined(deep.a)]{_id, deep}')).result).toEqual([{ _id: 'deep-ok', deep: deepest.deep }]);

      const refused = await data.mutate([{ create: { _id: 'deep-bad', _type: 'deep' } }, { create: { _id: 'deep-too', _type: 'deep', deep: nested(1000) } }]);
      expect(expectErrorBody(refused, 400).message).toBe('mutations[1].create nests objects and arrays more than 1000 levels deep');
      expectErrorBody(await data.doc('deep-bad'), 404);
      // A patch that makes a document too deep is refused the same way, and leaves it as it was.
      expectErrorBody(await data.mutate([{ patch: { id: 'deep-ok', set: { wider: [nested(999)] } } }]), 400);
      expect(ok(await data.doc('deep-ok')).wider).toBeUndefined();
    });
  });

  describe('attribute paths of a document', () => {
    /** An object of `count` keys. */
    const wide = (count: number, prefix = 'f'): Record<string, number> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, i]));
    const TOO_MANY = 'has more than 10,000 distinct attribute paths (the items of an array share theirs)';

    it('stores a document of 10,000 paths, the items of an array sharing theirs, and refuses one path more', async () => {
      // Ten paths besides the fields: _id, _type, _rev, _createdAt, _updatedAt, fields, blocks,
      // blocks[], blocks[]._key and blocks[].text (one each, for 20,000 blocks).
      const widest = { _id: 'paths-ok', _type: 'paths', fields: wide(MAX_DOCUMENT_PATHS - 10), blocks: Array.from({ length: 20_000 }, (_, i) => ({ _key: `k${i}`, text: `block ${i}` })) };
      ok(await data.mutate([{ create: widest }]));
      expect(Object.keys(ok(await data.doc('paths-ok')).fields as object)).toHaveLength(MAX_DOCUMENT_PATHS - 10);

      const refused = await data.mutate([{ create: { _id: 'paths-bad', _type: 'paths' } }, { create: { _id: 'paths-too', _type: 'paths', fields: wide(MAX_DOCUMENT_PATHS) } }]);
      expect(expectErrorBody(refused, 400).message).toBe(`mutations[1].create ${TOO_MANY}`);
      expectErrorBody(await data.doc('paths-bad'), 404);
      // A path more, added by a patch: refused once applied, the document kept as it was.
      const oneMore = await data.mutate([{ patch: { id: 'paths-ok', set: { 'fields.one_more': 1 } } }]);
      expect(expectErrorBody(oneMore, 400).message).toBe(`document paths-ok ${TOO_MANY}`);
      expect(ok(await data.doc('paths-ok')).fields).not.toHaveProperty('one_more');
    });

    it('refuses a patch naming more paths than a document may hold before applying it', async () => {
      ok(await data.mutate([{ create: { _id: 'paths-patched', _type: 'paths' } }]));
      const refused = await data.mutate([{ patch: { id: 'paths-patched', set: wide(MAX_DOCUMENT_PATHS + 1, 'a.b.') } }]);
      expect(expectErrorBody(refused, 400).message).toBe(`mutations[0].patch ${TOO_MANY}`);
      expect(ok(await data.doc('paths-patched'))).not.toHaveProperty('a');
    });

    it('refuses such a document in an action and in an import line', async () => {
      const action = await app.request('POST', `/api/v1/data/actions/production`, {
        token: app.admin,
        headers: { 'x-project': projectSlug },
        body: { actions: [{ actionType: 'sanity.action.document.create', publishedId: 'paths-action', attributes: { _type: 'paths', fields: wide(MAX_DOCUMENT_PATHS) } }] },
      });
      expect(expectErrorBody(action, 400).message).toContain(TOO_MANY);
      const imported = await app.request<{ created: number; errors: { line: number; error: string }[] }>('POST', '/api/v1/data/import/production', {
        token: app.admin,
        headers: { 'x-project': projectSlug, 'content-type': 'application/x-ndjson' },
        rawBody: [{ _id: 'paths-line-1', _type: 'paths' }, { _id: 'paths-line-2', _type: 'paths', fields: wide(MAX_DOCUMENT_PATHS) }].map((line) => JSON.stringify(line)).join('\n'),
      });
      expect(ok(imported)).toMatchObject({ created: 1, errors: [{ line: 2, error: `the document ${TOO_MANY}` }] });
    });
  });

  describe('long transactions', () => {
    it(`takes ${MAX_TRANSACTION_STEPS.toLocaleString('en')} mutations in one transaction, and refuses one more with 400, writing nothing`, async () => {
      const creates = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => ({ create: { _id: `${prefix}-${i}`, _type: 'many' } }));
      const refused = await data.mutate(creates(MAX_TRANSACTION_STEPS + 1, 'too-many'));
      expect(expectErrorBody(refused, 400).message).toContain(`a transaction takes at most ${MAX_TRANSACTION_STEPS.toLocaleString('en')}`);
      expectErrorBody(await data.doc('too-many-0'), 404);

      // Meanwhile the event loop keeps turning: other requests are answered while it runs.
      let turns = 0;
      let running = true;
      const turn = () => {
        turns++;
        if (running) setImmediate(turn);
      };
      const store = app.services.store;
      const transaction = store.transaction.bind(store);
      let turnsInside = 0;
      const spy = vi.spyOn(store, 'transaction').mockImplementation((work) =>
        transaction(async (tx) => {
          const before = turns;
          const value = await work(tx);
          turnsInside = turns - before;
          return value;
        }),
      );
      try {
        turn();
        const results = ok(await data.mutate(creates(MAX_TRANSACTION_STEPS, 'many'))).results;
        expect(results).toHaveLength(MAX_TRANSACTION_STEPS);
      } finally {
        running = false;
        spy.mockRestore();
      }
      expect(turnsInside).toBeGreaterThan(0);
      expect(ok(await data.query<number>('count(*[_type == "many"])')).result).toBe(MAX_TRANSACTION_STEPS);
    });
  });

  describe('malformed mutations', () => {
    it.each([
      [{}, 'mutations'],
      [{ mutations: [] }, 'mutations'],
      [{ mutations: 'create' }, 'mutations'],
      [{ mutations: [{}] }, 'mutations[0] is empty'],
      [{ mutations: [{ create: { _type: 'a' }, delete: { id: 'x' } }] }, 'exactly one'],
      [{ mutations: [{ upsert: { _type: 'a' } }] }, 'unknown operation "upsert"'],
      [{ mutations: [{ create: { title: 'no type' } }] }, '_type'],
      [{ mutations: [{ create: { _type: '' } }] }, '_type'],
      [{ mutations: [{ create: { _type: 'a', _id: 'bad id!' } }] }, '_id'],
      [{ mutations: [{ create: { _type: 'a', _id: 42 } }] }, '_id'],
      [{ mutations: [{ createOrReplace: { _type: 'a' } }] }, '_id'],
      [{ mutations: [{ createIfNotExists: { _type: 'a' } }] }, '_id'],
      [{ mutations: [{ delete: {} }] }, 'id'],
      [{ mutations: [{ delete: { id: '../etc/passwd' } }] }, 'id'],
      [{ mutations: [{ create: [] }] }, 'document object'],
      [{ mutations: [null] }, 'mutations[0]'],
    ])('answers 400 for %j', async (body, text) => {
      const response = await app.request('POST', '/api/v1/data/mutate/production', {
        token: await app.login(),
        headers: { 'x-project': projectId },
        body,
      });
      expect(expectErrorBody(response, 400).message).toContain(text);
    });

    it('answers 404 for a missing project or dataset', async () => {
      const token = await app.login();
      const mutations = [{ create: { _type: 'a' } }];
      expectErrorBody(await app.request('POST', '/api/v1/data/mutate/production', { token, headers: { 'x-project': 'no-such' }, body: { mutations } }), 404);
      expectErrorBody(await app.request('POST', '/api/v1/data/mutate/staging', { token, headers: { 'x-project': projectId }, body: { mutations } }), 404);
    });
  });
});
