import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/eventually.ts';
import { withFailingInsert } from '../helpers/failing-insert.ts';
import { memoryLog } from '../helpers/memory-log.ts';
import { createLogger } from '../../src/logging.ts';

const FAST = { SCHEDULER_INTERVAL_MS: '50' };

describe(`scheduled publishing (${testEngine})`, () => {
  describe('the schedule endpoint', () => {
    const app = useTestApp();
    let data: ReturnType<typeof dataClient>;

    beforeAll(async () => {
      data = dataClient(app, app.admin, (await createProject(app, app.admin)).slug);
    });

    it('sets, reads and cancels a schedule', async () => {
      await data.mutate([{ create: { _id: 'drafts.sc1', _type: 'post' } }]);
      expect(ok(await data.schedule('sc1', '2099-05-01T10:00:00+02:00'))).toEqual({ documentId: 'sc1', scheduledAt: '2099-05-01T08:00:00.000Z' });
      expect(ok(await data.getSchedule('drafts.sc1'))).toEqual({ documentId: 'sc1', scheduledAt: '2099-05-01T08:00:00.000Z' });
      expect(ok(await data.schedule('drafts.sc1', null))).toEqual({ documentId: 'sc1', scheduledAt: null });
      expect(ok(await data.getSchedule('sc1')).scheduledAt).toBeNull();
    });

    it.each([['tomorrow'], ['2099-13-01T00:00:00Z'], ['2099-01-01'], [12345], [true], [{}]])('answers 400 for scheduledAt %j', async (value) => {
      await data.mutate([{ createOrReplace: { _id: 'drafts.sc2', _type: 'post' } }]);
      expectErrorBody(await data.schedule('sc2', value), 400);
    });

    it('answers 400 without scheduledAt and 404 without a draft', async () => {
      // JSON drops an undefined property: the body is {}.
      expect(expectErrorBody(await data.schedule('sc2', undefined), 400).message).toContain('scheduledAt');
      await data.mutate([{ create: { _id: 'sc3', _type: 'post' } }]);
      expectErrorBody(await data.schedule('sc3', '2099-01-01T00:00:00Z'), 404);
    });

    it('is cleared when the draft is published by hand or deleted', async () => {
      await data.mutate([{ create: { _id: 'drafts.sc4', _type: 'post' } }, { create: { _id: 'drafts.sc5', _type: 'post' } }]);
      await data.schedule('sc4', '2099-01-01T00:00:00Z');
      await data.schedule('sc5', '2099-01-01T00:00:00Z');
      await data.publish('sc4');
      await data.mutate([{ delete: { id: 'drafts.sc5' } }]);
      expect(ok(await data.getSchedule('sc4')).scheduledAt).toBeNull();
      expect(ok(await data.getSchedule('sc5')).scheduledAt).toBeNull();
    });
  });

  it('publishes a due draft automatically, clears the schedule and emits document.publish', async () => {
    const app = await startTestApp(FAST, { workers: true });
    try {
      const admin = await app.login();
      const data = dataClient(app, admin, (await createProject(app, admin)).slug);
      await data.mutate([{ create: { _id: 'drafts.auto', _type: 'post', title: 'Scheduled' } }]);
      ok(await data.schedule('auto', new Date(Date.now() + 300).toISOString()));
      const published = await eventually(async () => {
        const response = await data.doc('auto');
        return response.status === 200 ? response.body : undefined;
      });
      expect(published.title).toBe('Scheduled');
      expectErrorBody(await data.doc('drafts.auto'), 404);
      expect(ok(await data.getSchedule('auto')).scheduledAt).toBeNull();
      expect((await outboxEvents(app)).filter((e) => e.documentId === 'auto').map((e) => e.event)).toEqual(['document.publish']);
    } finally {
      await app.close();
    }
  });

  it('survives a restart: a schedule set before stopping fires after starting again', async () => {
    const db = createTestDatabase();
    const first = await startTestApp(FAST, { db });
    const admin = await first.login();
    const project = await createProject(first, admin);
    const data = dataClient(first, admin, project.slug);
    await data.mutate([{ create: { _id: 'drafts.durable', _type: 'post' } }]);
    ok(await data.schedule('durable', new Date(Date.now() - 1000).toISOString()));
    await first.close({ keepDatabase: true });

    const second = await startTestApp(FAST, { db, workers: true });
    try {
      const after = dataClient(second, await second.login(), project.slug);
      await eventually(async () => ((await after.doc('durable')).status === 200 ? true : undefined));
    } finally {
      await second.close();
    }
  });

  it('fires a schedule once when several instances share the database', async () => {
    const db = createTestDatabase();
    const instances = [await startTestApp(FAST, { db, workers: true })];
    instances.push(await startTestApp(FAST, { db, workers: true }), await startTestApp(FAST, { db, workers: true }));
    try {
      const [one] = instances;
      const admin = await one!.login();
      const data = dataClient(one!, admin, (await createProject(one!, admin)).slug);
      const ids = Array.from({ length: 8 }, (_, i) => `multi-${i}`);
      await data.mutate(ids.map((id) => ({ create: { _id: `drafts.${id}`, _type: 'post' } })));
      const due = new Date(Date.now() + 200).toISOString();
      for (const id of ids) ok(await data.schedule(id, due));
      await eventually(async () => {
        const publishes = (await outboxEvents(one!)).filter((e) => e.event === 'document.publish');
        return publishes.length >= ids.length ? true : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const publishes = (await outboxEvents(one!)).filter((e) => e.event === 'document.publish').map((e) => e.documentId);
      expect(publishes.sort()).toEqual([...ids].sort());
    } finally {
      for (const [index, instance] of instances.entries()) await instance.close({ keepDatabase: index < instances.length - 1 });
    }
  });

  describe('a schedule that cannot fire yet', () => {
    const log = memoryLog();
    const app = useTestApp({}, { log: createLogger('info', log.stream) });
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

    it('does not hold back the schedules due after it, is tried again at each pass and logged once', async () => {
      const data = dataClient(app, app.admin, (await createProject(app, app.admin)).slug);
      ok(await data.mutate(['doomed', 'next-1', 'next-2'].map((id) => ({ create: { _id: `drafts.${id}`, _type: 'post', title: id } }))));
      ok(await data.schedule('doomed', ago(3000)));
      ok(await data.schedule('next-1', ago(2000)));
      ok(await data.schedule('next-2', ago(1000)));
      const failures = () => log.lines.filter((line) => line.msg === 'scheduled publish failed; it is tried again at each pass');
      await withFailingInsert(app, 'doomed', async () => {
        expect(await app.services.scheduler.tick()).toBe(2);
        expect(await app.services.scheduler.tick()).toBe(0);
      });
      expect(ok(await data.doc('next-1')).title).toBe('next-1');
      expect(ok(await data.doc('next-2')).title).toBe('next-2');
      expect(failures()).toHaveLength(1);
      expect((failures()[0]!.err as { message: string }).message).toContain('storage refused');
      // The fault is gone: the schedule it kept fires at the next pass.
      expect(ok(await data.getSchedule('doomed')).scheduledAt).not.toBeNull();
      expect(await app.services.scheduler.tick()).toBe(1);
      expect(ok(await data.doc('doomed')).title).toBe('doomed');
    });

    it('waits while its dataset is removed from the project, and fires once the dataset is back', async () => {
      const project = await createProject(app, app.admin, ['production', 'staging']);
      const staging = dataClient(app, app.admin, project.slug, 'staging');
      const production = dataClient(app, app.admin, project.slug);
      ok(await staging.mutate([{ create: { _id: 'drafts.held', _type: 'post' } }]));
      ok(await production.mutate([{ create: { _id: 'drafts.after', _type: 'post' } }]));
      ok(await staging.schedule('held', ago(2000)));
      ok(await production.schedule('after', ago(1000)));
      const setDatasets = async (datasets: string[]) =>
        ok(await app.request('PUT', `/api/v1/projects/${project.slug}`, { token: app.admin, body: { datasets } }));

      await setDatasets(['production']);
      expect(await app.services.scheduler.tick()).toBe(1);
      expect((await production.doc('after')).status).toBe(200);

      await setDatasets(['production', 'staging']);
      expect((await staging.doc('held')).status).toBe(404);
      expect(ok(await staging.getSchedule('held')).scheduledAt).not.toBeNull();
      expect(await app.services.scheduler.tick()).toBe(1);
      expect((await staging.doc('held')).status).toBe(200);
    });
  });
});
