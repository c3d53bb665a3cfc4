import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';

describe(`webhook fan-out in commit order (${testEngine})`, () => {
  it('never passes a transaction still in progress, so no event is skipped', async () => {
    const app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const receiver = await startReceiver();
    try {
      const admin = await app.login();
      const project = await createProject(app, admin);
      const created = await app.request('POST', `/api/v1/webhooks/${project.slug}`, {
        token: admin,
        body: { name: 'order', url: receiver.url, events: ['document.create'], dataset: 'production' },
      });
      expect(created.status).toBe(201);
      const { store } = app.services;
      const event = (documentId: string) => ({
        projectId: project.id,
        dataset: 'production',
        event: 'document.create',
        documentId,
        documentType: 'probe',
        transactionId: `tx-${documentId}`,
        payload: { event: 'document.create', dataset: 'production', documentId, documentType: 'probe', timestamp: new Date().toISOString() },
        createdAt: new Date().toISOString(),
      });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const inserted = new Promise<void>((resolve) => (written = resolve));
      // The slow transaction takes the lower serial number and commits last.
      const slow = store.transaction(async (tx) => {
        await tx.outbox.append(event('slow'));
        written();
        await held;
      });
      await inserted;
      const fast = store.transaction((tx) => tx.outbox.append(event('fast')));
      // On PostgreSQL the fan-out runs while the slow transaction is still open (SQLite's single
      // writer makes it wait for the commit instead).
      if (store.dialect === 'postgres') await fast;
      const firstPass = app.services.webhookWorker.tick();
      if (store.dialect === 'postgres') await firstPass;
      release();
      await firstPass;
      await slow;
      await fast;
      await app.services.webhookWorker.tick();
      await app.services.webhookWorker.settled();
      await receiver.waitFor(2);
      expect(receiver.requests.map((request) => JSON.parse(request.rawBody).documentId).sort()).toEqual(['fast', 'slow']);
    } finally {
      await receiver.close();
      await app.close();
    }
  });
});

describe(`webhook deliveries with several instances on one database (${testEngine})`, () => {
  it('claims each delivery once: one request per delivery id', async () => {
    const db = createTestDatabase();
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
    const instances = [await startTestApp(env, { db, workers: true })];
    instances.push(await startTestApp(env, { db, workers: true }), await startTestApp(env, { db, workers: true }));
    const receiver = await startReceiver();
    try {
      const [one] = instances;
      const admin = await one!.login();
      const project = await createProject(one!, admin);
      const created = await one!.request('POST', `/api/v1/webhooks/${project.slug}`, {
        token: admin,
        body: { name: 'multi', url: receiver.url, events: ['document.create'], dataset: 'production' },
      });
      expect(created.status).toBe(201);
      for (const [index, instance] of instances.entries()) {
        const data = dataClient(instance, admin, project.slug);
        for (let i = 0; i < 10; i++) ok(await data.mutate([{ create: { _type: `from-${index}` } }]));
      }
      await receiver.waitFor(30, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const instance of instances) await instance.services.webhookWorker.settled();
      const ids = receiver.requests.map((request) => request.headers['x-service-delivery']);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
    } finally {
      await receiver.close();
      for (const [index, instance] of instances.entries()) await instance.close({ keepDatabase: index < instances.length - 1 });
    }
  }, 60_000);
});
