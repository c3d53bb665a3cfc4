import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

/** Sanity's perspectives, and their default by API version (docs/decisions.md). */
describe(`perspectives (${testEngine})`, () => {
  const app = useTestApp();
  let slug: string;

  beforeAll(async () => {
    slug = (await createProject(app, app.admin)).slug;
    ok(
      await dataClient(app, app.admin, slug).mutate([
        { create: { _id: 'post-1', _type: 'post', title: 'published one', author: { _ref: 'ann' } } },
        { create: { _id: 'drafts.post-1', _type: 'post', title: 'draft one', author: { _ref: 'ann' } } },
        { create: { _id: 'versions.rSpring.post-1', _type: 'post', title: 'spring one', author: { _ref: 'ann' } } },
        { create: { _id: 'post-2', _type: 'post', title: 'published two' } },
        { create: { _id: 'versions.rSpring.post-3', _type: 'post', title: 'spring three' } },
        { create: { _id: 'drafts.post-4', _type: 'post', title: 'draft four' } },
        { create: { _id: 'ann', _type: 'author', name: 'Ann' } },
        { create: { _id: 'drafts.ann', _type: 'author', name: 'Ann (draft)' } },
      ]),
    );
  });

  const titles = async (version: string, perspective?: string) => {
    const query = encodeURIComponent('*[_type == "post"] | order(_id) {_id, _originalId, title, "author": author->name}');
    const url = `/api/${version}/data/query/production?query=${query}${perspective === undefined ? '' : `&perspective=${perspective}`}`;
    return ok(await app.request<{ result: { _id: string; _originalId?: string; title: string; author: string | null }[] }>('GET', url, { token: app.admin, headers: { 'x-project': slug } })).result;
  };
  const ids = (rows: { _id: string }[]) => rows.map((row) => row._id);

  it('default to raw on /api/v1 and on API versions before 2025-02-19', async () => {
    for (const version of ['v1', 'v2021-06-07', 'v2025-02-18']) {
      expect(ids(await titles(version))).toEqual(['drafts.post-1', 'drafts.post-4', 'post-1', 'post-2', 'versions.rSpring.post-1', 'versions.rSpring.post-3']);
    }
  });

  it('default to published from API version 2025-02-19 on, and on vX, as Sanity does', async () => {
    for (const version of ['v2025-02-19', 'v2026-01-01', 'vX']) {
      expect(await titles(version)).toEqual([
        { _id: 'post-1', _originalId: null, title: 'published one', author: 'Ann' },
        { _id: 'post-2', _originalId: null, title: 'published two', author: null },
      ]);
    }
  });

  it('overlay drafts on published documents with drafts, leaving release versions out', async () => {
    expect(await titles('v2025-02-19', 'drafts')).toEqual([
      { _id: 'post-1', _originalId: 'drafts.post-1', title: 'draft one', author: 'Ann (draft)' },
      { _id: 'post-2', _originalId: 'post-2', title: 'published two', author: null },
      { _id: 'post-4', _originalId: 'drafts.post-4', title: 'draft four', author: null },
    ]);
  });

  it('stack a release over published documents, and over drafts when drafts is in the stack', async () => {
    expect(await titles('v2025-02-19', 'rSpring')).toEqual([
      { _id: 'post-1', _originalId: 'versions.rSpring.post-1', title: 'spring one', author: 'Ann' },
      { _id: 'post-2', _originalId: 'post-2', title: 'published two', author: null },
      { _id: 'post-3', _originalId: 'versions.rSpring.post-3', title: 'spring three', author: null },
    ]);
    expect(ids(await titles('v2025-02-19', 'rSpring,drafts,published'))).toEqual(['post-1', 'post-2', 'post-3', 'post-4']);
    expect((await titles('v2025-02-19', 'rSpring,drafts'))[0]).toMatchObject({ _originalId: 'versions.rSpring.post-1', author: 'Ann (draft)' });
    expect(ids(await titles('v2025-02-19', 'rAutumn'))).toEqual(['post-1', 'post-2']);
  });
});
