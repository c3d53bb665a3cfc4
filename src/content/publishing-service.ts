import { parseTimestamp } from './timestamps.ts';
import { badRequest, notFound } from '../errors.ts';
import type { ProjectRecord, Store, StoredDocument } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { actorIdOf } from './actor.ts';
import type { ChangeSet } from './change-set.ts';
import { baseIdOf, draftIdOf } from './document-ids.ts';
import { runContentTransaction } from './transactions.ts';

export interface ScheduleView {
  documentId: string;
  scheduledAt: string | null;
}

/**
 * Publishes the draft of `baseId` inside an open change set: its content becomes the published
 * document (new _rev, the published _createdAt kept if there was one), the draft is deleted and
 * any schedule is cleared. Emits document.publish only.
 */
export async function publishIn(changes: ChangeSet, baseId: string): Promise<StoredDocument> {
  const draftId = draftIdOf(baseId);
  const draft = await changes.get(draftId);
  if (!draft) throw notFound(`Draft "${draftId}" not found`);
  const existing = await changes.get(baseId);
  const { transactionId, now, projectId, dataset } = changes.context;
  const published: StoredDocument = {
    ...draft,
    _id: baseId,
    _rev: transactionId,
    _createdAt: existing?._createdAt ?? draft._createdAt,
    _updatedAt: now,
  };
  changes.put(published);
  changes.remove(draftId);
  changes.announce(baseId, 'document.publish');
  changes.silence(draftId);
  await changes.tx.schedules.clear(projectId, dataset, baseId);
  return published;
}

/**
 * Unpublishes `baseId` inside an open change set: the published document is deleted; without a
 * draft its content becomes the draft, so nothing is lost, and an existing draft is kept as it is.
 * Emits document.unpublish only. Returns the draft.
 */
export async function unpublishIn(changes: ChangeSet, baseId: string): Promise<StoredDocument> {
  const draftId = draftIdOf(baseId);
  const published = await changes.get(baseId);
  if (!published) throw notFound(`Published document "${baseId}" not found`);
  changes.remove(baseId);
  changes.announce(baseId, 'document.unpublish');
  const existingDraft = await changes.get(draftId);
  if (existingDraft) return existingDraft;
  const { transactionId, now } = changes.context;
  const draft: StoredDocument = { ...published, _id: draftId, _rev: transactionId, _updatedAt: now };
  changes.put(draft);
  changes.silence(draftId);
  return draft;
}

/** Publish, unpublish and scheduled publishing (README "Documents"). */
export class PublishingService {
  private readonly store: Store;
  private readonly now: () => Date;

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  async publish(actor: Principal, project: ProjectRecord, dataset: string, id: string): Promise<StoredDocument> {
    requireProjectRole(actor, project, 'editor', { dataset });
    const baseId = baseIdOf(id);
    const { value } = await runContentTransaction(this.store, this.scope(actor, project, dataset), async (changes) => {
      await changes.lock([baseId]);
      return publishIn(changes, baseId);
    });
    return value;
  }

  /** Unpublishes the document (unpublishIn); returns the draft. */
  async unpublish(actor: Principal, project: ProjectRecord, dataset: string, id: string): Promise<StoredDocument> {
    requireProjectRole(actor, project, 'editor', { dataset });
    const baseId = baseIdOf(id);
    const { value } = await runContentTransaction(this.store, this.scope(actor, project, dataset), async (changes) => {
      await changes.lock([baseId]);
      return unpublishIn(changes, baseId);
    });
    return value;
  }

  /** Sets (or with null cancels) the time at which the draft is published automatically. */
  async schedule(actor: Principal, project: ProjectRecord, dataset: string, id: string, scheduledAt: unknown): Promise<ScheduleView> {
    requireProjectRole(actor, project, 'editor', { dataset });
    const baseId = baseIdOf(id);
    const at = parseScheduledAt(scheduledAt);
    return this.store.transaction(async (tx) => {
      await tx.documents.lock(project.id, dataset, [baseId]);
      if (!(await tx.documents.get(project.id, dataset, draftIdOf(baseId)))) throw notFound(`Draft "${draftIdOf(baseId)}" not found`);
      if (at === null) {
        await tx.schedules.clear(project.id, dataset, baseId);
      } else {
        await tx.schedules.set({
          projectId: project.id,
          dataset,
          documentId: baseId,
          scheduledAt: at,
          createdBy: actorIdOf(actor),
          createdAt: this.now().toISOString(),
        });
      }
      return { documentId: baseId, scheduledAt: at };
    });
  }

  async getSchedule(actor: Principal, project: ProjectRecord, dataset: string, id: string): Promise<ScheduleView> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const baseId = baseIdOf(id);
    const schedule = await this.store.schedules.get(project.id, dataset, baseId);
    return { documentId: baseId, scheduledAt: schedule?.scheduledAt ?? null };
  }

  private scope(actor: Principal, project: ProjectRecord, dataset: string) {
    return { projectId: project.id, dataset, actorId: actorIdOf(actor), now: this.now() };
  }
}

function parseScheduledAt(value: unknown): string | null {
  if (value === null) return null;
  const at = parseTimestamp(value);
  if (at === undefined) throw badRequest('scheduledAt must be an ISO 8601 timestamp such as 2030-01-31T09:00:00Z (a date that exists), or null to cancel');
  return at;
}
