import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SanityClient } from '@sanity/client';
import imageUrlBuilder from '@sanity/image-url';
import sharp from 'sharp';
import { useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { solidPng } from '../helpers/images.ts';

/** The real @sanity/client and @sanity/image-url, pointed at this server by configuration only. */
describe(`Sanity's client against this server (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let client: SanityClient;
  let token: string;

  beforeAll(async () => {
    token = await app.login();
    project = await createProject(app, token);
    client = createClient({
      projectId: project.id,
      dataset: 'production',
      apiHost: `${app.url}/api`,
      useProjectHostname: false,
      apiVersion: '1',
      useCdn: false,
      token,
    });
  });

  it('creates, reads and fetches documents with params (GET) and long queries (POST)', async () => {
    const created = await client.create({ _type: 'post', title: 'Hello', views: 3 });
    expect(created._id).toMatch(/^drafts\./);
    expect(created).toMatchObject({ _type: 'post', title: 'Hello' });
    await client.createOrReplace({ _id: 'post-a', _type: 'post', title: 'A', views: 10 });
    await client.createIfNotExists({ _id: 'post-a', _type: 'post', title: 'ignored' });
    expect(await client.getDocument('post-a')).toMatchObject({ _id: 'post-a', title: 'A' });
    expect(await client.getDocument('missing')).toBeUndefined();
    expect((await client.getDocuments(['post-a', 'missing'])).map((doc) => doc?._id ?? null)).toEqual(['post-a', null]);
    expect(await client.fetch('*[_type == $type && views > $min].title', { type: 'post', min: 5 })).toEqual(['A']);
    const padding = ' '.repeat(12_000);
    expect(await client.fetch(`count(*[_type == "post"])${padding}`)).toBe(2);
  });

  it('patches with set, inc, setIfMissing, insert and ifRevisionID, in transactions, and deletes', async () => {
    await client.createOrReplace({ _id: 'counter', _type: 'counter', n: 1, items: [] });
    const current = await client.getDocument('counter');
    const patched = await client.patch('counter').ifRevisionId(current!._rev).inc({ n: 2 }).set({ label: 'x' }).setIfMissing({ extra: true }).append('items', [{ _key: 'a', v: 1 }]).commit();
    expect(patched).toMatchObject({ n: 3, label: 'x', extra: true, items: [{ _key: 'a', v: 1 }] });
    await expect(client.patch('counter').ifRevisionId('stale').set({ n: 0 }).commit()).rejects.toMatchObject({ statusCode: 409 });
    const result = await client.transaction().create({ _id: 'tx-1', _type: 'note' }).patch('counter', (p) => p.dec({ n: 1 })).commit();
    expect(result.results.map((r) => r.operation)).toEqual(['create', 'update']);
    expect((await client.getDocument('counter'))!.n).toBe(2);
    await client.delete('tx-1');
    expect(await client.getDocument('tx-1')).toBeUndefined();
  });

  it('listens over Server-Sent Events with includeResult', async () => {
    const events: { type: string; transition?: string; documentId?: string; result?: { title?: string } }[] = [];
    const subscription = client
      .listen('*[_type == "live" && title == $title]', { title: 'watched' }, { includeResult: true, events: ['welcome', 'mutation'] })
      .subscribe((event) => events.push(event as (typeof events)[number]));
    try {
      const deadline = Date.now() + 10_000;
      while (!events.some((event) => event.type === 'welcome') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      await client.create({ _id: 'live-1', _type: 'live', title: 'watched' });
      await client.create({ _id: 'live-2', _type: 'live', title: 'ignored' });
      while (!events.some((event) => event.type === 'mutation') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      const mutations = events.filter((event) => event.type === 'mutation');
      expect(mutations).toHaveLength(1);
      expect(mutations[0]).toMatchObject({ documentId: 'live-1', transition: 'appear', result: { title: 'watched' } });
    } finally {
      subscription.unsubscribe();
    }
  });

  it('uploads an image and serves it under the URLs @sanity/image-url builds', async () => {
    const png = await solidPng(200, 100, { r: 10, g: 200, b: 30, alpha: 1 });
    const asset = await client.assets.upload('image', png, { filename: 'green.png' });
    expect(asset._type).toBe('sanity.imageAsset');
    expect(asset._id).toMatch(/^image-[0-9a-f]{40}-200x100-png$/);
    expect(asset.metadata.dimensions).toMatchObject({ width: 200, height: 100 });
    const again = await client.assets.upload('image', png, { filename: 'again.png' });
    expect(again._id).toBe(asset._id);
    await client.create({ _id: 'with-image', _type: 'post', image: { _type: 'image', asset: { _type: 'reference', _ref: asset._id } } });
    expect(await client.fetch('*[_id == "with-image"][0].image.asset->_id')).toBe(asset._id);

    const builder = imageUrlBuilder({ projectId: project.id, dataset: 'production', baseUrl: `${app.url}/api/v1` });
    const url = builder.image({ asset: { _ref: asset._id } }).width(50).height(50).fit('crop').format('webp').url();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await sharp(Buffer.from(await response.arrayBuffer())).metadata()).toMatchObject({ width: 50, height: 50, format: 'webp' });
    const flipped = builder.image(asset._id).rect(0, 0, 100, 100).flipHorizontal().url();
    expect(await sharp(Buffer.from(await (await fetch(flipped, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer())).metadata()).toMatchObject({ width: 100, height: 100 });
    expect((await fetch(url)).status).toBe(401);

    const file = await client.assets.upload('file', Buffer.from('%PDF-1.4 hello'), { filename: 'doc.pdf' });
    expect(file._type).toBe('sanity.fileAsset');
  });
});
