import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

describe(`numbers and dates at their limits (${testEngine})`, () => {
  const app = useTestApp();
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    data = dataClient(app, app.admin, (await createProject(app, app.admin)).slug);
  });

  it('refuses an increment whose result is beyond a number (it would be stored as null)', async () => {
    ok(await data.mutate([{ createOrReplace: { _id: 'counter', _type: 'stats', views: 0 } }]));
    ok(await data.mutate([{ patch: { id: 'counter', inc: { views: 1e308 } } }]));
    expect(expectErrorBody(await data.mutate([{ patch: { id: 'counter', inc: { views: 1e308 } } }]), 400).message).toMatch(/range of a number/);
    expectErrorBody(await data.mutate([{ patch: { id: 'counter', dec: { views: 1e308 } }, }, { patch: { id: 'counter', dec: { views: 1e308 } } }, { patch: { id: 'counter', dec: { views: 1e308 } } }]), 400);
    expect(ok(await data.doc('counter')).views).toBe(1e308);
  });

  it('refuses a scheduledAt that names no real date instead of rolling it over', async () => {
    ok(await data.mutate([{ create: { _id: 'drafts.later', _type: 'post' } }]));
    for (const at of ['2030-02-30T00:00:00Z', '2030-02-29T00:00:00Z', '2030-04-31T09:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01T10:60:00Z', '2030-00-10T00:00:00Z']) {
      expect(expectErrorBody(await data.schedule('later', at), 400).message).toMatch(/scheduledAt/);
    }
    expect(ok(await data.schedule('later', '2032-02-29T12:00:00+01:00')).scheduledAt).toBe('2032-02-29T11:00:00.000Z');
  });
});
