import type { FastifyBaseLogger } from 'fastify';
import type { Repositories, Store } from '../store/index.ts';
import { requireProjectRole } from '../access/access-control.ts';
import { AppError } from '../errors.ts';
import { principalOfActor } from './actor.ts';
import { draftIdOf } from './document-ids.ts';
import { publishIn } from './publishing-service.ts';
import { withChangeSet } from './transactions.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** Whether the user or API token that scheduled a publish is still an editor of the project and dataset. */
async function mayStillPublish(tx: Repositories, projectId: string, dataset: string, actorId: string | null): Promise<boolean> {
  const project = await tx.projects.findById(projectId);
  const principal = actorId === null ? undefined : await principalOfActor(tx, actorId);
  if (!project || !principal) return false;
  try {
    requireProjectRole(principal, project, 'editor', { dataset });
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'FORBIDDEN') return false;
    throw error;
  }
}

/**
 * Publishes due drafts. Schedules live in the database, so they survive restarts; each one is
 * claimed in its own transaction (FOR UPDATE SKIP LOCKED on PostgreSQL), so with several
 * instances a schedule fires once. A schedule whose draft is gone is dropped.
 */
export class Scheduler {
  private readonly store: Store;
  private readonly intervalMs: number;
  private readonly log: Logger;
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(store: Store, intervalMs: number, log: Logger, now: () => Date = () => new Date()) {
    this.store = store;
    this.intervalMs = intervalMs;
    this.log = log;
    this.now = now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass: publishes every due schedule; resolves to how many fired. Ticks never overlap. */
  tick(): Promise<number> {
    this.running ??= this.runDue().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runDue(): Promise<number> {
    let fired = 0;
    try {
      while (await this.fireOne()) fired++;
    } catch (error) {
      this.log.error({ err: error }, 'scheduled publishing failed; retrying at the next tick');
    }
    return fired;
  }

  /**
   * Fires the earliest due schedule; false when none is due. The document lock is taken before the
   * schedule row, in the same order as publish and schedule requests, so they cannot deadlock.
   */
  private async fireOne(): Promise<boolean> {
    const now = this.now();
    const candidate = await this.store.schedules.nextDue(now.toISOString());
    if (!candidate) return false;
    const { projectId, dataset, documentId } = candidate;
    await this.store.transaction(async (tx) => {
      await tx.documents.lock(projectId, dataset, [documentId]);
      const due = await tx.schedules.claim(projectId, dataset, documentId, now.toISOString());
      if (!due) return; // fired by another instance, cancelled or moved meanwhile
      if (!(await tx.documents.get(projectId, dataset, draftIdOf(documentId)))) {
        await tx.schedules.clear(projectId, dataset, documentId);
        this.log.warn({ documentId, dataset }, 'scheduled draft no longer exists; schedule dropped');
        return;
      }
      // A schedule publishes with its author's rights as they are when it fires, not as they were.
      if (!(await mayStillPublish(tx, projectId, dataset, due.createdBy))) {
        await tx.schedules.clear(projectId, dataset, documentId);
        this.log.warn({ documentId, dataset, scheduledBy: due.createdBy }, 'whoever scheduled this publish may no longer publish here; schedule dropped');
        return;
      }
      await withChangeSet(tx, { projectId, dataset, actorId: due.createdBy, now }, (changes) => publishIn(changes, documentId));
      this.log.info({ documentId, dataset }, 'scheduled publish');
    });
    return true;
  }
}
