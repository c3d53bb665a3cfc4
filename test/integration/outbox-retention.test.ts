import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { OUTBOX_RETENTION } from '../../src/webhooks/webhook-worker.ts';
import type { OutboxEventRecord } from '../../src/store/index.ts';

// The outbox is read once, by the webhook fan-out; events it has passed are deleted once older
// than the retention, so the table does not grow with every write ever made (an import of a
// million documents writes a million events).
describe(`outbox retention (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;

  beforeAll(async () => {
    // No background workers: the test decides when the fan-out runs.
    app = await startTestApp();
    admin = await app.login();
  });
  afterAll(async () => app.close());

  const event = (projectId: string, documentId: string, createdAt: string): OutboxEventRecord => ({
    projectId,
    dataset: 'production',
    event: 'document.create',
    documentId,
    documentType: 'post',
    transactionId: `tx-${documentId}`,
    payload: { documentId },
    createdAt,
  });
  const idsOf = async (projectId: string) => (await outboxEvents(app)).filter((e) => e.projectId === projectId).map((e) => e.documentId);

  it('deletes fanned-out events older than the retention, keeps the rest, and the fan-out reads on', async () => {
    const { store, webhookWorker } = app.services;
    const project = await createProject(app, admin);
    const old = new Date(Date.now() - OUTBOX_RETENTION.retentionMs - 60_000).toISOString();
    await store.transaction((tx) => tx.outbox.appendMany([event(project.id, 'old-1', old), event(project.id, 'old-2', old)]));
    ok(await dataClient(app, admin, project.slug).mutate([{ create: { _id: 'recent-1', _type: 'post' } }]));

    // Not fanned out yet: however old, nothing goes.
    expect(await webhookWorker.pruneOutbox()).toBe(0);
    expect(await idsOf(project.id)).toEqual(['old-1', 'old-2', 'recent-1']);

    await webhookWorker.tick();
    // Appended after the fan-out passed: old, but not read yet.
    await store.transaction((tx) => tx.outbox.append(event(project.id, 'old-3', old)));
    expect(await webhookWorker.pruneOutbox()).toBe(2);
    expect(await idsOf(project.id)).toEqual(['recent-1', 'old-3']);

    // The fan-out goes on from its position as before, and the next pruning takes what it passed.
    await webhookWorker.tick();
    const [last] = (await outboxEvents(app)).slice(-1);
    expect(await store.cursors.position('webhooks')).toEqual(last!.position);
    expect(await webhookWorker.pruneOutbox()).toBe(1);
    expect(await idsOf(project.id)).toEqual(['recent-1']);
  });
});
