import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type ApiResponse } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { scaledRuns } from './fuzz-scale.ts';

// Generated workloads of concurrent writers on a few shared documents: mutations of every kind
// (some with ifRevisionID), document actions (edit, publish, unpublish, discard), the publish and
// unpublish routes, restores of earlier revisions, imports with and without replace, all sent at
// once in rounds. Every answer must be below 500 (a conflict is a
// 409). Afterwards the store must agree with itself: each document as read by id, as the planner
// finds it through the index (by id, by type, by value), and in the export (a plain scan of the
// documents); and the revision each document carries is in its history.
const RUNS = scaledRuns(12);
const TYPES = ['post', 'page'] as const;
const A = 'sanity.action.document.';

type Operation =
  | { kind: 'mutate'; mutations: unknown[]; ifRevision: boolean }
  | { kind: 'action'; action: 'edit' | 'publish' | 'unpublish' | 'discard'; base: string; n: number }
  | { kind: 'import'; documents: { id: string; type: string; n: number; tags: string[] }[]; replace: boolean }
  | { kind: 'route'; route: 'publish' | 'unpublish'; base: string }
  | { kind: 'restore'; id: string; revision: number };

interface Exported {
  _id: string;
  _type: string;
  _rev: string;
  n?: unknown;
  tags?: unknown;
}

describe(`concurrent writers leave a consistent store (${testEngine})`, () => {
  const app = useTestApp();
  let data: ReturnType<typeof dataClient>;
  let slug: string;

  beforeAll(async () => {
    slug = (await createProject(app, app.admin)).slug;
    data = dataClient(app, app.admin, slug);
  });

  const base = fc.constantFrom('a', 'b', 'c');
  const id = fc.tuple(base, fc.boolean()).map(([name, draft]) => (draft ? `drafts.${name}` : name));
  const type = fc.constantFrom(...TYPES);
  const n = fc.integer({ min: -3, max: 3 });
  const tags = fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 3 });
  const mutation = fc.oneof(
    fc.tuple(fc.constantFrom('create', 'createOrReplace', 'createIfNotExists'), id, type, n, tags).map(([kind, _id, _type, value, list]) => ({ [kind]: { _id, _type, n: value, tags: list } })),
    fc.tuple(id, n).map(([target, value]) => ({ patch: { id: target, set: { n: value } } })),
    fc.tuple(id, n).map(([target, value]) => ({ patch: { id: target, inc: { n: value } } })),
    fc.tuple(id, fc.constantFrom('x', 'y', 'z')).map(([target, tag]) => ({ patch: { id: target, setIfMissing: { tags: [] }, insert: { after: 'tags[-1]', items: [tag] } } })),
    id.map((target) => ({ patch: { id: target, unset: ['n'] } })),
    id.map((target) => ({ delete: { id: target } })),
  );
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('mutate' as const), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }), ifRevision: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('action' as const), action: fc.constantFrom('edit' as const, 'publish' as const, 'unpublish' as const, 'discard' as const), base, n }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('route' as const), route: fc.constantFrom('publish' as const, 'unpublish' as const), base }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('restore' as const), id, revision: fc.integer({ min: 1, max: 4 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('import' as const),
        documents: fc.uniqueArray(fc.record({ id, type, n, tags }), { minLength: 1, maxLength: 3, selector: (document) => document.id }),
        replace: fc.boolean(),
      }),
    },
  );
  const workload = fc.array(fc.array(operation, { minLength: 2, maxLength: 6 }), { minLength: 2, maxLength: 5 });

  /** The ids of one run: its own, so runs do not see each other's documents. */
  const scoped = (run: number, name: string) => (name.startsWith('drafts.') ? `drafts.r${run}-${name.slice(7)}` : `r${run}-${name}`);

  async function send(run: number, op: Operation): Promise<ApiResponse> {
    switch (op.kind) {
      case 'mutate': {
        const mutations = op.mutations.map((m) => JSON.parse(JSON.stringify(m).replace(/"(_id|id)":"([^"]+)"/g, (_all, key: string, name: string) => `"${key}":"${scoped(run, name)}"`)) as Record<string, unknown>);
        if (op.ifRevision) {
          // A revision read just before: often stale by the time the write lands.
          for (const m of mutations) {
            const patch = m.patch as { id: string; ifRevisionID?: string } | undefined;
            if (!patch) continue;
            const current = await data.doc<{ _rev?: string }>(patch.id);
            if (current.status === 200 && current.body._rev) patch.ifRevisionID = current.body._rev;
          }
        }
        return data.mutate(mutations);
      }
      case 'action': {
        const publishedId = scoped(run, op.base);
        const draftId = `drafts.${publishedId}`;
        const action =
          op.action === 'edit'
            ? { actionType: `${A}edit`, draftId, publishedId, patch: { set: { n: op.n } } }
            : op.action === 'discard'
              ? { actionType: `${A}discard`, draftId }
              : { actionType: `${A}${op.action}`, draftId, publishedId };
        return app.request('POST', '/api/v1/data/actions/production', { token: app.admin, headers: { 'x-project': slug }, body: { actions: [action] } });
      }
      case 'route':
        return app.request('POST', `/api/v1/data/${op.route}/production/${scoped(run, op.base)}`, { token: app.admin, headers: { 'x-project': slug } });
      case 'restore':
        return app.request('POST', `/api/v1/data/history/production/${scoped(run, op.id)}/${op.revision}/restore`, { token: app.admin, headers: { 'x-project': slug } });
      case 'import': {
        const lines = op.documents.map((document) => JSON.stringify({ _id: scoped(run, document.id), _type: document.type, n: document.n, tags: document.tags })).join('\n');
        return app.request('POST', `/api/v1/data/import/production${op.replace ? '?replace=true' : ''}`, {
          token: app.admin,
          headers: { 'x-project': slug, 'content-type': 'application/x-ndjson' },
          rawBody: `${lines}\n`,
        });
      }
    }
  }

  async function exported(run: number): Promise<Exported[]> {
    const response = await fetch(`${app.url}/api/v1/data/export/production`, { headers: { authorization: `Bearer ${app.admin}`, 'x-project': slug } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const prefix = `r${run}-`;
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Exported)
      .filter((document) => document._id.startsWith(prefix) || document._id.startsWith(`drafts.${prefix}`));
  }

  async function query<T>(groq: string, params: Record<string, unknown>): Promise<T> {
    const response = await app.request<{ result: T }>('POST', '/api/v1/data/query/production', { token: app.admin, headers: { 'x-project': slug }, body: { query: groq, params } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.result;
  }

  async function expectConsistent(run: number): Promise<void> {
    const documents = await exported(run);
    const byId = new Map(documents.map((document) => [document._id, document]));
    const ids = ['a', 'b', 'c'].flatMap((name) => [scoped(run, name), scoped(run, `drafts.${name}`)]);
    for (const documentId of ids) {
      const expected = byId.get(documentId) ?? null;
      const read = await data.doc<Record<string, unknown> | null>(documentId);
      expect(read.status === 200 ? read.body : null, `GET ${documentId}`).toEqual(expected);
      expect(await query('*[_id == $id][0]', { id: documentId }), `lookup ${documentId}`).toEqual(expected);
      if (expected) {
        // The history holds the document as the transaction that wrote it left it.
        const atRevision = await app.request<{ documents: Exported[] }>('GET', `/api/v1/data/history/production/documents/${documentId}?revision=${expected._rev}`, {
          token: app.admin,
          headers: { 'x-project': slug },
        });
        expect(atRevision.status, `history of ${documentId} at ${expected._rev}`).toBe(200);
        expect(atRevision.body.documents, `history of ${documentId} at ${expected._rev}`).toEqual([expected]);
      }
    }
    // Through the index over the whole dataset (earlier runs' documents too), then this run's ids.
    const ofRun = (found: string[]) => found.filter((foundId) => ids.includes(foundId)).sort();
    const idsWhere = (keep: (document: Exported) => boolean) => documents.filter(keep).map((document) => document._id).sort();
    for (const documentType of TYPES) {
      const ofType = (document: Exported) => document._type === documentType;
      expect(ofRun(await query<string[]>('*[_type == $type]._id', { type: documentType })), `type ${documentType}`).toEqual(idsWhere(ofType));
      expect(ofRun(await query<string[]>('*[_type == $type && n > 0]._id', { type: documentType })), `n > 0, ${documentType}`).toEqual(
        idsWhere((document) => ofType(document) && typeof document.n === 'number' && document.n > 0),
      );
      expect(ofRun(await query<string[]>('*[_type == $type && "x" in tags]._id', { type: documentType })), `tagged x, ${documentType}`).toEqual(
        idsWhere((document) => ofType(document) && Array.isArray(document.tags) && document.tags.includes('x')),
      );
    }
  }

  it('answers every concurrent write below 500, and every read agrees with the documents afterwards', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(workload, async (rounds) => {
        run += 1;
        for (const round of rounds) {
          const answers = await Promise.all(round.map((op) => send(run, op)));
          for (const [i, answer] of answers.entries()) {
            expect(answer.status, `${JSON.stringify(round[i])} -> ${JSON.stringify(answer.body).slice(0, 300)}`).toBeLessThan(500);
          }
        }
        await expectConsistent(run);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers an import racing writes to its documents with 200 or 409 (rolled back whole), never 500', async () => {
    for (let i = 0; i < 60; i++) {
      const documentId = `race-${i}`;
      const answers = await Promise.all([
        data.mutate([{ create: { _id: documentId, _type: 'post', n: 0 } }]),
        app.request('POST', '/api/v1/data/import/production', {
          token: app.admin,
          headers: { 'x-project': slug, 'content-type': 'application/x-ndjson' },
          rawBody: `${JSON.stringify({ _id: `drafts.${documentId}`, _type: 'post', n: 1 })}\n${JSON.stringify({ _id: documentId, _type: 'post', n: 1 })}\n`,
        }),
        data.mutate([{ createOrReplace: { _id: `drafts.${documentId}`, _type: 'post', n: 2 } }]),
      ]);
      for (const answer of answers) {
        expect([200, 409], JSON.stringify(answer.body)).toContain(answer.status);
        if (answer.status === 409) expect((answer.body as { message: string }).message).toMatch(/send the request again/);
      }
    }
  });
});
