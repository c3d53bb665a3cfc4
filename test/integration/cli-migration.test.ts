import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';
import { processDatabaseUrl, run } from '../helpers/cli.ts';
import { solidPng } from '../helpers/images.ts';

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

/** An archive shaped like `sanity dataset export` output: <name>/data.ndjson, assets.json, images/, files/. */
async function sanityArchive(dir: string): Promise<{ file: string; png: Buffer; pdf: Buffer }> {
  const png = await solidPng(64, 32);
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200, 65)]);
  const folder = join(dir, 'production-export-2024-05-01');
  mkdirSync(join(folder, 'images'), { recursive: true });
  mkdirSync(join(folder, 'files'), { recursive: true });
  writeFileSync(join(folder, 'images', `${sha1(png)}-64x32.png`), png);
  writeFileSync(join(folder, 'files', `${sha1(pdf)}.pdf`), pdf);
  const documents = [
    { _id: 'author-1', _type: 'author', _rev: 'abc', _createdAt: '2021-01-01T00:00:00Z', _updatedAt: '2021-01-02T00:00:00Z', name: 'Ann' },
    {
      _id: 'post-1',
      _type: 'post',
      _rev: 'def',
      _createdAt: '2022-03-04T05:06:07Z',
      _updatedAt: '2022-03-05T00:00:00Z',
      title: 'Hello',
      author: { _type: 'reference', _ref: 'author-1' },
      mainImage: { _type: 'image', _sanityAsset: `image@file://./images/${sha1(png)}-64x32.png`, hotspot: { x: 0.5, y: 0.5, height: 1, width: 1 } },
      attachment: { _type: 'file', _sanityAsset: `file@file://./files/${sha1(pdf)}.pdf` },
      body: [{ _key: 'a', _type: 'image', _sanityAsset: `image@file://./images/${sha1(png)}-64x32.png` }],
    },
    { _id: 'drafts.post-1', _type: 'post', title: 'Hello, edited' },
    { _id: 'system.group.public', _type: 'system.group', grants: [] },
  ];
  writeFileSync(join(folder, 'data.ndjson'), `${documents.map((document) => JSON.stringify(document)).join('\n')}\n`);
  writeFileSync(
    join(folder, 'assets.json'),
    JSON.stringify({
      [`image-${sha1(png)}-64x32-png`]: { originalFilename: 'hero.png' },
      [`file-${sha1(pdf)}-pdf`]: { originalFilename: 'brochure.pdf' },
    }),
  );
  const file = join(dir, 'production.tar.gz');
  await tar.c({ gzip: true, file, cwd: dir }, ['production-export-2024-05-01']);
  return { file, png, pdf };
}

describe(`cms import and export of Sanity archives (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'cms-archive-'));

  beforeAll(async () => {
    const db = createTestDatabase();
    app = await startTestApp({}, { db });
    admin = await app.login();
    project = await createProject(app, admin, ['production', 'staging']);
    env = { DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db) };
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const query = async (text: string, dataset = 'production') =>
    (await app.request<{ result: unknown }>('POST', `/api/v1/data/query/${dataset}`, { token: admin, headers: { 'x-project': project.slug }, body: { query: text } })).body
      .result;

  const POST_QUERY = '*[_id == "post-1"][0]{title, _createdAt, "author": author->name, "image": mainImage.asset->{url, originalFilename, "w": metadata.dimensions.width}, "file": attachment.asset->originalFilename, "inline": body[0].asset->_id, "hotspot": mainImage.hotspot.x}';

  it('imports an archive: documents, asset files as sanity asset documents, references rewritten', async () => {
    const { file, png } = await sanityArchive(dir);
    const result = await run(['import', file, '--dataset', 'production', '--project', project.slug], env);
    expect(result.stderr).toMatch(/created/);
    expect(result.code).toBe(0);
    const post = (await query(POST_QUERY)) as { image: { url: string; originalFilename: string; w: number }; [key: string]: unknown };
    expect(post).toMatchObject({
      title: 'Hello',
      _createdAt: '2022-03-04T05:06:07.000Z',
      author: 'Ann',
      image: { originalFilename: 'hero.png', w: 64 },
      file: 'brochure.pdf',
      inline: `image-${sha1(png)}-64x32-png`,
      hotspot: 0.5,
    });
    const image = await fetch(`${app.url}${post.image.url}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    expect(await query('count(*[_id in path("system.**")])')).toBe(0);
    expect(await query('*[_id == "drafts.post-1"][0].title')).toBe('Hello, edited');
    // Importing again reuses the stored files and skips existing documents.
    const again = await run(['import', file, '--dataset', 'production', '--project', project.slug], env);
    expect(again.stderr).toMatch(/0 created/);
    const assets = await app.request<{ total: number }>('GET', '/api/v1/assets/production/list', { token: admin, headers: { 'x-project': project.slug } });
    expect(assets.body.total).toBe(2);
  });

  it('exports NDJSON to standard output', async () => {
    const result = await run(['export', '--dataset', 'production', '--project', project.slug, '--no-drafts'], env);
    const ids = result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { _id: string })._id);
    expect(ids).toContain('post-1');
    expect(ids).not.toContain('drafts.post-1');
  });

  it('exports a Sanity-style archive that imports back into another dataset with the same content', async () => {
    const out = join(dir, 'roundtrip.tar.gz');
    const exported = await run(['export', '--dataset', 'production', '--project', project.slug, '--out', out], env);
    expect(exported.code).toBe(0);
    const unpacked = join(dir, 'unpacked');
    mkdirSync(unpacked);
    await tar.x({ file: out, cwd: unpacked });
    const [folder] = readdirSync(unpacked);
    const data = readFileSync(join(unpacked, folder!, 'data.ndjson'), 'utf8');
    expect(data).toContain('"_sanityAsset":"image@file://./images/');
    expect(data).not.toContain('sanity.imageAsset');
    expect(readdirSync(join(unpacked, folder!, 'images'))).toHaveLength(1);
    expect(readdirSync(join(unpacked, folder!, 'files'))).toHaveLength(1);

    const imported = await run(['import', out, '--dataset', 'staging', '--project', project.slug], env);
    expect(imported.code).toBe(0);
    const original = (await query(POST_QUERY)) as Record<string, unknown>;
    const copy = (await query(POST_QUERY, 'staging')) as Record<string, unknown>;
    expect({ ...copy, image: { ...(copy.image as object), url: 'x' } }).toEqual({ ...original, image: { ...(original.image as object), url: 'x' } });
  });

  it('fails with a message for a missing file or dataset', async () => {
    const missing = await run(['import', join(dir, 'nope.ndjson'), '--dataset', 'production', '--project', project.slug], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no such file');
    const noDataset = await run(['export', '--dataset', 'nowhere', '--project', project.slug], env);
    expect(noDataset.code).not.toBe(0);
    expect(noDataset.stderr).toContain('nowhere');
  });
});
