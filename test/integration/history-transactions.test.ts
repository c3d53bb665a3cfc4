import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { TransactionHistory, type TransactionQuery } from '../../src/content/transaction-history.ts';
import { CLI_PRINCIPAL } from '../../src/access/system-principal.ts';
import {
  fetchTransactions,
  replayBackwards,
  replayForwards,
  STUDIO_HISTORY_QUERY,
  withoutRev,
  type TransactionLine,
  type Versions,
} from '../helpers/history.ts';

type Doc = Record<string, unknown>;

const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

describe(`Sanity's History API: transactions and documents at a revision (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let adminId: string;
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.login();
    adminId = (await app.request<{ id: string }>('GET', '/api/v1/users/me', { token: admin })).body.id;
    project = await createProject(app, admin, ['production', 'staging']);
    data = dataClient(app, admin, project.slug);
  });
  afterAll(async () => app.close());

  /** As Studio addresses it: the project in the path, a dated API version. */
  const studioPath = (rest: string) => `/api/p/${project.slug}/v2025-02-19/data/history/production/${rest}`;
  const transactions = (ids: string, query = '', token: string | null = admin) => fetchTransactions(app, token ?? undefined, studioPath(`transactions/${ids}?${query}`));
  const documentsAt = (ids: string, query: string, token = admin) =>
    app.request<{ documents: Doc[] }>('GET', studioPath(`documents/${ids}?${query}`), { token });

  /** The draft and published versions of `id` now, with their `_rev`. */
  async function versionsOf(id: string): Promise<Versions> {
    const { documents } = ok(await data.doc<{ documents: Doc[] }>(`${id},drafts.${id}`));
    return { [id]: documents.find((d) => d._id === id) ?? null, [`drafts.${id}`]: documents.find((d) => d._id === `drafts.${id}`) ?? null };
  }

  const stripRevs = (versions: Versions): Versions => Object.fromEntries(Object.entries(versions).map(([id, doc]) => [id, withoutRev(doc)]));

  async function mutate(mutations: unknown[]): Promise<string> {
    return ok(await data.mutate(mutations)).transactionId;
  }

  describe('a document edited, published, edited, published again, unpublished, restored, discarded and restored by Studio', () => {
    const id = 'journey';
    const draft = `drafts.${id}`;
    /** Per transaction, oldest first: its id and both versions after it. */
    const steps: { id: string; versions: Versions }[] = [];

    beforeAll(async () => {
      const record = async (transactionId: string) => {
        steps.push({ id: transactionId, versions: await versionsOf(id) });
        await pause();
      };
      const body = [{ _key: 'a', _type: 'block', children: [{ _key: 'a1', _type: 'span', text: 'First paragraph' }] }];
      await record(await mutate([{ createIfNotExists: { _id: draft, _type: 'post' } }, { patch: { id: draft, set: { title: 'One', body } } }]));
      await record(await mutate([{ patch: { id: draft, set: { 'body[_key=="a"].children[_key=="a1"].text': 'First paragraph, edited' } } }]));
      await record(String(ok(await data.publish(id))._rev));
      await record(await mutate([{ createIfNotExists: { ...withoutRev((await versionsOf(id))[id]), _id: draft } }, { patch: { id: draft, set: { title: 'Two' } } }]));
      const published = (await versionsOf(id))[id]!;
      const republish = { ...withoutRev((await versionsOf(id))[draft]), _id: id };
      await record(await mutate([{ patch: { id, unset: ['_revision_lock_pseudo_field_'], ifRevisionID: published._rev } }, { createOrReplace: republish }, { delete: { id: draft } }]));
      await record(String(ok(await data.unpublish(id))._rev));
      await record(String(ok(await data.restore(id, 1))._rev));
      await record(await mutate([{ delete: { id: draft } }]));
      const old = ok(await documentsAt(`${id},${draft}`, `revision=${steps[3]!.id}`)).documents.find((d) => d._id === draft)!;
      const { _updatedAt: _dropped, ...restored } = old;
      await record(await mutate([{ createOrReplace: { ...restored, _id: draft } }]));
    });

    it("answers Studio's request with one NDJSON line per transaction, newest first, with mendoza effects", async () => {
      const response = await transactions(`${id},${draft}`, STUDIO_HISTORY_QUERY);
      expect(response.status).toBe(200);
      expect(response.contentType).toMatch(/^application\/x-ndjson/);
      expect(response.lines.map((line) => line.id)).toEqual(steps.map((step) => step.id).reverse());
      for (const line of response.lines) {
        expect(Object.keys(line).sort()).toEqual(['author', 'documentIDs', 'effects', 'id', 'timestamp']);
        expect(line.author).toBe(adminId);
        expect(line.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Object.keys(line.effects!).sort()).toEqual([...line.documentIDs].sort());
      }
      const [restore, discard, , unpublish, republish, , publish] = response.lines;
      // A publish writes the published document and deletes the draft: both, in one line.
      for (const line of [publish!, republish!]) {
        expect([...line.documentIDs].sort()).toEqual([draft, id].sort());
        expect(line.effects![draft]!.apply).toEqual([0, null]);
      }
      expect(unpublish!.effects![id]!.apply).toEqual([0, null]);
      expect(discard!.documentIDs).toEqual([draft]);
      expect(discard!.effects![draft]!.apply).toEqual([0, null]);
      expect(restore!.documentIDs).toEqual([draft]);
      // Asked again, the effects come from the cache: the same answer.
      expect((await transactions(`${id},${draft}`, STUDIO_HISTORY_QUERY)).lines).toEqual(response.lines);
    });

    it('gives effects whose reverts, applied backwards from the current documents, reproduce every earlier version', async () => {
      const { lines } = await transactions(`${id},${draft}`, STUDIO_HISTORY_QUERY);
      const current = stripRevs(await versionsOf(id));
      expect(current).toEqual(stripRevs(steps.at(-1)!.versions));
      const before = replayBackwards(current, lines);
      const expected = [...steps.slice(0, -1).map((step) => stripRevs(step.versions)).reverse(), { [id]: null, [draft]: null }];
      expect(before).toEqual(expected);
      // And forwards from nothing, oldest first, the applies give each version after its transaction.
      const forwards = replayForwards({ [id]: null, [draft]: null }, [...lines].reverse());
      expect(forwards).toEqual(steps.map((step) => stripRevs(step.versions)));
    });

    it('keeps the patches minimal: an edit of one span carries only the new text', async () => {
      const { lines } = await transactions(`${id},${draft}`, STUDIO_HISTORY_QUERY);
      const edit = lines.find((line) => line.id === steps[1]!.id)!;
      const apply = JSON.stringify(edit.effects![draft]!.apply);
      expect(apply).toContain('edited');
      expect(apply).not.toContain('First paragraph');
    });

    it('makes the same lines and documents when every transaction is read a document at a time', async () => {
      // A step reads what fits in its budget; a transaction beyond it, a part of its documents at
      // a time (large documents). With a budget of a byte, every transaction and document is.
      const stored = (await app.services.store.projects.findById(project.id))!;
      const text = async (history: TransactionHistory, query: TransactionQuery) => {
        let all = '';
        for await (const piece of await history.transactions(CLI_PRINCIPAL, stored, 'production', query)) all += piece;
        return all;
      };
      const query: TransactionQuery = { documentIds: [id, draft], effects: true, mutations: true, reverse: false, identifiedOnly: false };
      const atOnce = new TransactionHistory(app.services.store, { effectsCacheChars: 0 });
      const byParts = new TransactionHistory(app.services.store, { effectsCacheChars: 0, linesTextBytes: 1 });
      const expected = await text(atOnce, query);
      expect(expected.split('\n').filter(Boolean)).toHaveLength(steps.length);
      expect(await text(byParts, query)).toBe(expected);
      const documents = async (history: TransactionHistory) => {
        let all = '';
        for await (const piece of await history.documentsAt(CLI_PRINCIPAL, stored, 'production', [id, draft], { lastRevision: true })) all += piece;
        return JSON.parse(all) as { documents: Doc[] };
      };
      expect((await documents(byParts)).documents).toEqual([steps[4]!.versions[id], steps.at(-1)!.versions[draft]]);
    });

    it('returns the documents as each transaction left them (revision), at a time, and last before deletion', async () => {
      for (const step of steps) {
        const { documents } = ok(await documentsAt(`${id},${draft}`, `revision=${step.id}`));
        expect(documents).toEqual([step.versions[id], step.versions[draft]].filter(Boolean));
      }
      const { lines } = await transactions(`${id},${draft}`, 'excludeContent=true');
      for (const [index, line] of lines.entries()) {
        const { documents } = ok(await documentsAt(`${id},${draft}`, `time=${line.timestamp}`));
        expect(documents).toEqual([steps[index]!.versions[id], steps[index]!.versions[draft]].filter(Boolean));
      }
      expect(ok(await documentsAt(id, 'time=2000-01-01T00:00:00Z')).documents).toEqual([]);
      // The published document is gone (unpublished): lastRevision gives it as it was last.
      expect(ok(await documentsAt(`${id},${draft}`, 'lastRevision=true')).documents).toEqual([steps[4]!.versions[id], steps.at(-1)!.versions[draft]]);
      expectErrorBody(await documentsAt(id, 'revision=no-such-transaction'), 404);
      expectErrorBody(await documentsAt(id, ''), 400);
      expectErrorBody(await documentsAt(id, `revision=${steps[0]!.id}&time=2030-01-01T00:00:00Z`), 400);
      expectErrorBody(await documentsAt(id, 'time=yesterday'), 400);
    });
  });

  describe('query parameters', () => {
    const id = 'params';
    const draft = `drafts.${id}`;
    /** Oldest first. */
    const ids: string[] = [];
    let editor: Awaited<ReturnType<typeof createUser>>;

    beforeAll(async () => {
      editor = await createUser(app, admin, 'editor');
      const byEditor = dataClient(app, editor.token, project.slug);
      ids.push(await mutate([{ create: { _id: draft, _type: 'post', n: 0 } }]));
      for (let n = 1; n <= 4; n++) {
        await pause();
        const client = n % 2 === 0 ? byEditor : data;
        ids.push(ok(await client.mutate([{ patch: { id: draft, set: { n } } }])).transactionId);
      }
      await pause();
      // One transaction that also writes another document.
      ids.push(await mutate([{ patch: { id: draft, set: { n: 5 } } }, { create: { _id: 'params-other', _type: 'note' } }]));
    });

    const lineIds = (lines: TransactionLine[]) => lines.map((line) => line.id);

    it('reads oldest first by default and newest first with reverse=true; limit counts transactions', async () => {
      expect(lineIds((await transactions(`${id},${draft}`)).lines)).toEqual(ids);
      expect(lineIds((await transactions(`${id},${draft}`, 'reverse=true')).lines)).toEqual([...ids].reverse());
      expect(lineIds((await transactions(`${id},${draft}`, 'limit=2')).lines)).toEqual(ids.slice(0, 2));
      expect(lineIds((await transactions(`${id},${draft}`, 'reverse=true&limit=2')).lines)).toEqual([ids[5], ids[4]]);
      expect((await transactions(draft, 'limit=0')).status).toBe(400);
      expect((await transactions(draft, 'limit=many')).status).toBe(400);
    });

    it('includes fromTransaction and toTransaction, and pages the way Studio does', async () => {
      expect(lineIds((await transactions(draft, `fromTransaction=${ids[1]}&toTransaction=${ids[3]}`)).lines)).toEqual(ids.slice(1, 4));
      expect(lineIds((await transactions(draft, `reverse=true&toTransaction=${ids[3]}`)).lines)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
      // Studio asks again from the earliest line it has, and drops that line itself.
      const seen: string[] = [];
      let query = 'reverse=true&limit=2';
      for (let page = 0; page < 10; page++) {
        const { lines } = await transactions(draft, query);
        const fresh = lines.filter((line) => !seen.includes(line.id));
        seen.push(...fresh.map((line) => line.id));
        if (lines.length < 2) break;
        query = `reverse=true&limit=2&toTransaction=${lines.at(-1)!.id}`;
      }
      expect(seen).toEqual([...ids].reverse());
      const missing = await transactions(draft, 'toTransaction=nothing-like-it');
      expect(missing.status).toBe(404);
    });

    it('filters by time, inclusively', async () => {
      const { lines } = await transactions(draft);
      const times = lines.map((line) => line.timestamp);
      expect(lineIds((await transactions(draft, `fromTime=${times[2]}`)).lines)).toEqual(ids.slice(2));
      expect(lineIds((await transactions(draft, `toTime=${times[2]}`)).lines)).toEqual(ids.slice(0, 3));
      expect(lineIds((await transactions(draft, `fromTime=${times[1]}&toTime=${times[3]}&reverse=true`)).lines)).toEqual([ids[3], ids[2], ids[1]]);
      expect((await transactions(draft, 'fromTime=soon')).status).toBe(400);
    });

    it('filters by authors', async () => {
      expect(lineIds((await transactions(draft, `authors=${editor.id}`)).lines)).toEqual([ids[2], ids[4]]);
      expect(lineIds((await transactions(draft, `authors=${adminId},nobody`)).lines)).toEqual([ids[0], ids[1], ids[3], ids[5]]);
      const many = Array.from({ length: 101 }, (_, n) => `user-${n}`).join(',');
      expect((await transactions(draft, `authors=${many}`)).status).toBe(400);
      // A list that names no author is refused, not read as every author or as none.
      for (const empty of ['', ',', ' , ']) {
        const refused = await transactions(draft, `authors=${encodeURIComponent(empty)}`);
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('authors names no author') });
      }
    });

    it('lists every document a transaction wrote unless includeIdentifiedDocumentsOnly=true', async () => {
      const last = (query: string) => transactions(draft, `reverse=true&limit=1&effectFormat=mendoza&${query}`).then((r) => r.lines[0]!);
      const all = await last('');
      expect(all.documentIDs).toEqual([draft, 'params-other']);
      expect(Object.keys(all.effects!)).toEqual([draft, 'params-other']);
      expect(all.effects!['params-other']!.revert).toEqual([0, null]);
      const identified = await last('includeIdentifiedDocumentsOnly=true');
      expect(identified.documentIDs).toEqual([draft]);
      expect(Object.keys(identified.effects!)).toEqual([draft]);
    });

    it('sends the mutations as they were sent unless excludeMutations=true, and effects only with effectFormat=mendoza', async () => {
      const { lines } = await transactions(draft, 'includeIdentifiedDocumentsOnly=true');
      expect(lines[1]).toEqual({ id: ids[1], timestamp: expect.any(String), author: adminId, documentIDs: [draft], mutations: [{ patch: { id: draft, set: { n: 1 } } }] });
      expect(lines[5]!.mutations).toEqual([{ patch: { id: draft, set: { n: 5 } } }]);
      expect((await transactions(draft, 'excludeMutations=true')).lines[1]).toEqual({ id: ids[1], timestamp: expect.any(String), author: adminId, documentIDs: [draft] });
      expect((await transactions(draft, 'effectFormat=json')).status).toBe(400);
      expect((await transactions(draft, 'effectFormat=mendoza&excludeMutations=true')).lines[1]!.effects![draft]).toBeDefined();
    });

    it('describes writes that were not mutations (publish) as createOrReplace and delete', async () => {
      await mutate([{ create: { _id: 'drafts.params-publish', _type: 'post' } }]);
      ok(await data.publish('params-publish'));
      const { lines } = await transactions('params-publish,drafts.params-publish', 'reverse=true&limit=1');
      const published = ok(await data.doc('params-publish'));
      expect(lines[0]!.mutations).toEqual(expect.arrayContaining([{ createOrReplace: published }, { delete: { id: 'drafts.params-publish' } }]));
    });

    it('refuses excludeContent=false as Sanity does (403), and takes excludeContent=true', async () => {
      const refused = await transactions(draft, 'excludeContent=false');
      expect(refused.status).toBe(403);
      expect((await transactions(draft, 'excludeContent=true')).lines).toHaveLength(ids.length);
    });

    it('answers an empty body for documents without history', async () => {
      const response = await transactions('never-was,drafts.never-was', STUDIO_HISTORY_QUERY);
      expect(response.status).toBe(200);
      expect(response.lines).toEqual([]);
    });

    it('needs what reading needs: a viewer reads, a token only in its dataset, nobody without credentials', async () => {
      const viewer = await createUser(app, admin, 'viewer');
      expect((await transactions(draft, '', viewer.token)).lines).toHaveLength(ids.length);
      expect(ok(await documentsAt(draft, 'lastRevision=true', viewer.token)).documents).toHaveLength(1);
      const staging = await createApiToken(app, admin, project.slug, { dataset: 'staging' });
      expect((await transactions(draft, '', staging.token)).status).toBe(403);
      expectErrorBody(await documentsAt(draft, 'lastRevision=true', staging.token), 403);
      const read = await createApiToken(app, admin, project.slug);
      expect((await transactions(draft, '', read.token)).lines).toHaveLength(ids.length);
      expect((await transactions(draft, '', null)).status).toBe(401);
    });
  });

  describe('a long history', () => {
    const id = 'long';
    const draft = `drafts.${id}`;
    const ids: string[] = [];

    beforeAll(async () => {
      ids.push(await mutate([{ create: { _id: id, _type: 'post', n: 0 } }, { create: { _id: draft, _type: 'post', n: 0 } }]));
      // Changes of the draft, of the published document, and of both, in runs, with other documents between.
      for (let n = 1; n < 240; n++) {
        const targets = n % 7 === 0 ? [id, draft] : Math.floor(n / 25) % 2 === 0 ? [draft] : [id];
        ids.push(await mutate(targets.map((target) => ({ patch: { id: target, set: { n } } }))));
        if (n % 10 === 0) await mutate([{ create: { _type: 'noise' } }]);
      }
    });

    it('reads it whole in both directions, a batch at a time, each transaction once', async () => {
      const forwards = (await transactions(`${id},${draft}`, 'excludeMutations=true')).lines;
      expect(forwards.map((line) => line.id)).toEqual(ids);
      const backwards = (await transactions(`${id},${draft}`, 'reverse=true&excludeMutations=true&effectFormat=mendoza')).lines;
      expect(backwards.map((line) => line.id)).toEqual([...ids].reverse());
      const [before] = replayBackwards(stripRevs(await versionsOf(id)), backwards).slice(-1);
      expect(before).toEqual({ [id]: null, [draft]: null });
    });

    it('pages past a batch with limit, from a transaction, and for one document of the two', async () => {
      const page = (query: string) => transactions(`${id},${draft}`, `excludeMutations=true&${query}`).then((r) => r.lines.map((line) => line.id));
      expect(await page('reverse=true&limit=150')).toEqual([...ids].reverse().slice(0, 150));
      expect(await page(`reverse=true&limit=120&toTransaction=${ids[200]}`)).toEqual(ids.slice(81, 201).reverse());
      expect(await page(`limit=130&fromTransaction=${ids[30]}`)).toEqual(ids.slice(30, 160));
      const onlyPublished = (await transactions(id, 'excludeMutations=true&includeIdentifiedDocumentsOnly=true')).lines;
      expect(onlyPublished.map((line) => line.id)).toEqual(ids.filter((_, n) => n === 0 || n % 7 === 0 || Math.floor(n / 25) % 2 === 1));
      expect(onlyPublished.every((line) => line.documentIDs.length === 1 && line.documentIDs[0] === id)).toBe(true);
    });
  });

  describe("beside the service's own history routes", () => {
    it('keeps /:documentId, /:documentId/:revision and restore, also for documents called transactions or documents', async () => {
      for (const name of ['transactions', 'documents']) {
        await mutate([{ create: { _id: name, _type: 'post', v: 1 } }]);
        await mutate([{ patch: { id: name, set: { v: 2 } } }]);
        expect(ok(await data.history(name)).revisions.map((r) => r.revision)).toEqual([2, 1]);
        // /:name/:revision is Sanity's route now; the draft id names the same history.
        expect(ok(await data.revision(`drafts.${name}`, 1)).document).toMatchObject({ _id: name, v: 1 });
        expect(ok(await data.restore(name, 1))).toMatchObject({ _id: `drafts.${name}`, v: 1 });
      }
      const shadowed = await fetchTransactions(app, admin, `/api/v1/data/history/production/transactions/1?project=${project.slug}`);
      expect(shadowed.contentType).toMatch(/^application\/x-ndjson/);
    });
  });
});
