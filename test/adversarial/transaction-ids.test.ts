import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject, createUser } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

/** A client-chosen transactionId can never make a write keep a document's revision. */
describe(`client transaction ids (${testEngine})`, () => {
  const app = useTestApp();
  let editor: ReturnType<typeof dataClient>;
  let other: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    const project = await createProject(app, app.admin, ['production', 'staging']);
    editor = dataClient(app, (await createUser(app, app.admin, 'editor')).token, project.slug);
    other = dataClient(app, (await createUser(app, app.admin, 'editor')).token, project.slug);
  });

  it('become the revision of what they write', async () => {
    const body = ok(await editor.mutate([{ create: { _id: 'chosen', _type: 'post' } }], '?transactionId=my-own-tx-1'));
    expect(body.transactionId).toBe('my-own-tx-1');
    expect(ok(await editor.doc('chosen'))._rev).toBe('my-own-tx-1');
  });

  it('are refused when they name the current revision, so a stale ifRevisionID still fails', async () => {
    ok(await editor.mutate([{ createOrReplace: { _id: 'contested', _type: 'post', title: 'v1' } }]));
    const seen = ok(await other.doc('contested'))._rev as string;
    const reuse = await editor.mutate([{ patch: { id: 'contested', set: { title: 'v2' } } }], `?transactionId=${seen}`);
    expect(expectErrorBody(reuse, 409).message).toMatch(/already used/);
    expect(ok(await editor.doc('contested')).title).toBe('v1');

    ok(await editor.mutate([{ patch: { id: 'contested', set: { title: 'v2' } } }]));
    const stale = await other.mutate([{ patch: { id: 'contested', ifRevisionID: seen, set: { title: 'lost update' } } }]);
    expectErrorBody(stale, 409);
    expect(ok(await editor.doc('contested')).title).toBe('v2');
  });

  it('are refused when any earlier transaction of the dataset used them, for any document', async () => {
    const first = ok(await editor.mutate([{ create: { _id: 'first', _type: 'post' } }]));
    expectErrorBody(await editor.mutate([{ create: { _id: 'second', _type: 'post' } }], `?transactionId=${first.transactionId}`), 409);
    expectErrorBody(await editor.mutate([{ create: { _id: 'third', _type: 'post' } }], '?transactionId=my-own-tx-1'), 409);
  });

  it('are refused inside one group of concurrent writes too', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => editor.mutate([{ create: { _id: `racer-${n}`, _type: 'post' } }], '?transactionId=race-tx')));
    expect(results.map((response) => response.status).sort()).toEqual([200, 409, 409]);
  });
});
