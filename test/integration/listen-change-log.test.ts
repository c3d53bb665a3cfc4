import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { listenUrl, openListenSocket, type ListenSocket } from '../helpers/listen.ts';
import type { DocumentChangeRecord } from '../../src/store/repos/document-changes.ts';
import { LOG_START } from '../../src/store/commit-order.ts';

describe(`the change log behind listeners (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;
  let socket: ListenSocket;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.login();
    project = await createProject(app, admin);
    data = dataClient(app, admin, project.slug);
    socket = await openListenSocket(listenUrl(app, 'production', `?project=${project.slug}`), { authorization: `Bearer ${admin}` });
  });
  afterAll(async () => {
    await socket.close();
    await app.close();
  });

  const change = (documentId: string, createdAt = new Date().toISOString()): DocumentChangeRecord => ({
    projectId: project.id,
    dataset: 'production',
    documentId,
    transactionId: `tx-${documentId}`,
    previousRev: null,
    resultRev: `tx-${documentId}`,
    actor: null,
    createdAt,
  });

  /**
   * A transaction that appends a change for `documentId` and stays open until `release()`;
   * `appended` resolves once it has. `sent`: its row is written at once (a read of the log sends
   * it), rather than held until commit as PostgreSQL holds a transaction's INSERTs.
   */
  function openTransaction(documentId: string, { sent }: { sent: boolean }) {
    const { store } = app.services;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const called = new Promise<void>((resolve) => (appended = resolve));
    const done = store.transaction(async (tx) => {
      await tx.changes.appendMany([change(documentId)]);
      if (sent) await tx.changes.after(LOG_START, 1);
      appended();
      await held;
    });
    return { appended: called, release, done };
  }

  /** The log's head; then a transaction left open (see openTransaction); then one that appends `meanwhile` and commits. */
  async function openThenAnother(open: string, options: { sent: boolean }, meanwhile: string) {
    const { store } = app.services;
    const start = await store.changes.head();
    const slow = openTransaction(open, options);
    await slow.appended;
    const fast = store.transaction((tx) => tx.changes.appendMany([change(meanwhile)]));
    return { start, slow, fast };
  }

  it('never reads past a transaction still in progress, so no change is skipped', async () => {
    const { store } = app.services;
    const { start, slow, fast } = await openThenAnother('slow', { sent: true }, 'fast');
    // PostgreSQL commits the later transaction while the first is open (its serial number is
    // higher); SQLite, with one writer, queues it behind the first.
    if (store.dialect === 'postgres') await fast;
    expect(await store.changes.after(start, 10)).toEqual([]);
    slow.release();
    await slow.done;
    await fast;
    const changes = await store.changes.after(start, 10);
    expect(changes.map((entry) => entry.documentId)).toEqual(['slow', 'fast']);
    expect(await store.changes.after(changes[1]!.position, 10)).toEqual([]);
  });

  it('orders a change still held by its open transaction after what commits meanwhile, and skips neither', async () => {
    const { store } = app.services;
    const { start, slow, fast } = await openThenAnother('held', { sent: false }, 'meanwhile');
    if (store.dialect === 'postgres') {
      // The open transaction has written nothing yet, so the feed may read past it: its row,
      // written at its commit, gets a later transaction id than the one committed meanwhile.
      await fast;
      const first = await store.changes.after(start, 10);
      expect(first.map((entry) => entry.documentId)).toEqual(['meanwhile']);
      slow.release();
      await slow.done;
      const rest = await store.changes.after(first[0]!.position, 10);
      expect(rest.map((entry) => entry.documentId)).toEqual(['held']);
    } else {
      // One writer: the second transaction waits for the first.
      slow.release();
      await slow.done;
      await fast;
      expect((await store.changes.after(start, 10)).map((entry) => entry.documentId)).toEqual(['held', 'meanwhile']);
    }
  });

  it('sends a subscription no change committed before its welcome, even one the feed reads late', async () => {
    const { store } = app.services;
    // On PostgreSQL a transaction still open holds the feed back: what commits after it began is
    // read once it ends, by which time a later subscription exists. SQLite's feed cannot lag so.
    const holder = store.dialect === 'postgres' ? openTransaction('holder', { sent: true }) : undefined;
    await holder?.appended;
    ok(await data.mutate([{ create: { _id: 'early-1', _type: 'horizon' } }]));
    const late = await openListenSocket(listenUrl(app, 'production', `?project=${project.slug}`), { authorization: `Bearer ${admin}` });
    try {
      await late.subscribe({ query: '*[_type == "horizon"]' });
      holder?.release();
      await holder?.done;
      ok(await data.mutate([{ create: { _id: 'late-1', _type: 'horizon' } }]));
      expect((await late.next('mutation')).documentId).toBe('late-1');
    } finally {
      await late.close();
    }
  });

  it('writes nothing for a dry run, and a change for every document an import creates or replaces', async () => {
    await socket.subscribe({ query: '*[_type == "imported" || _type == "dry"]', includeResult: true });
    ok(await data.mutate([{ create: { _id: 'dry-1', _type: 'dry' } }], '?dryRun=true'));
    const lines = ['{"_id": "imp-1", "_type": "imported", "v": 1}', '{"_id": "imp-2", "_type": "imported", "v": 1}'].join('\n');
    const imported = await app.request('POST', `/api/v1/data/import/production?project=${project.slug}`, {
      token: admin,
      rawBody: lines,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.status).toBe(200);
    const first = [await socket.next('mutation'), await socket.next('mutation')];
    expect(first.map((event) => [event.documentId, event.transition])).toEqual([
      ['imp-1', 'appear'],
      ['imp-2', 'appear'],
    ]);
    const replaced = await app.request('POST', `/api/v1/data/import/production?project=${project.slug}&replace=true`, {
      token: admin,
      rawBody: '{"_id": "imp-1", "_type": "imported", "v": 2}',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(replaced.status).toBe(200);
    expect(await socket.next('mutation')).toMatchObject({ documentId: 'imp-1', transition: 'update', previousRev: first[0]!.transactionId, result: { v: 2 } });
    expect(socket.messages.all.filter((message) => message.documentId === 'dry-1')).toEqual([]);
  });

  it('keeps one revision, event and change for a document an import writes in two of its batches, the later line winning', async () => {
    await socket.subscribe({ query: '*[_type == "twice"]', includeResult: true });
    // The import writes 500 documents a batch: the second `twice-1` lands in the second batch.
    const fillers = Array.from({ length: 599 }, (_, i) => `{"_id": "filler-${i}", "_type": "filler"}`);
    const lines = ['{"_id": "twice-1", "_type": "twice", "v": 1}', ...fillers, '{"_id": "twice-1", "_type": "twice", "v": 2}'];
    const imported = await app.request('POST', `/api/v1/data/import/production?project=${project.slug}`, {
      token: admin,
      rawBody: lines.join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.body).toMatchObject({ total: 601, created: 600, replaced: 1, skipped: 0, errors: [] });
    expect((await data.doc('twice-1')).body).toMatchObject({ _id: 'twice-1', v: 2 });
    // The index holds the later line's values only.
    expect(ok(await data.query('*[_type == "twice" && v == 2]._id')).result).toEqual(['twice-1']);
    expect(ok(await data.query('*[_type == "twice" && v == 1]._id')).result).toEqual([]);
    const event = await socket.next('mutation');
    expect(event).toMatchObject({ documentId: 'twice-1', transition: 'appear', result: { v: 2 } });
    // A write after the import: the next event of the subscription is its, none other of the import's.
    ok(await data.mutate([{ create: { _id: 'twice-2', _type: 'twice' } }]));
    expect((await socket.next('mutation')).documentId).toBe('twice-2');
    expect(ok(await data.history('twice-1')).revisions).toHaveLength(1);
  });

  it('reaches listeners when a revision is restored', async () => {
    await socket.subscribe({ query: '*[_type == "restored"]', includeResult: true });
    await data.mutate([{ create: { _id: 'drafts.r-1', _type: 'restored', v: 1 } }]);
    await data.mutate([{ patch: { id: 'drafts.r-1', set: { v: 2 } } }]);
    await socket.next('mutation');
    await socket.next('mutation');
    ok(await data.restore('r-1', 1));
    expect(await socket.next('mutation')).toMatchObject({ documentId: 'drafts.r-1', transition: 'update', result: { v: 1 } });
  });

  it('keeps changes however old: the transaction history reads them', async () => {
    const { store } = app.services;
    const start = await store.changes.head();
    const old = new Date(Date.now() - 400 * 24 * 60 * 60_000).toISOString();
    await store.transaction((tx) => tx.changes.appendMany([change('old-1', old), change('recent-1')]));
    expect((await store.changes.after(start, 10)).map((entry) => entry.documentId)).toEqual(['old-1', 'recent-1']);
  });
});
