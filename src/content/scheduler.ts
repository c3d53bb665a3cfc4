import type { FastifyBaseLogger } from 'fastify';
import type { ProjectRecord, Repositories, ScheduleRecord, Store } from '../store/index.ts';
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

/** What became of one due schedule when the scheduler came to it. */
type Firing =
  | { kind: 'published' }
  | { kind: 'dropped'; reason: 'draft gone' | 'no longer may publish' }
  /** Its dataset was removed from the project: kept, and fired if the dataset is added again. */
  | { kind: 'held' }
  /** Fired by another instance, cancelled or moved since it was read. */
  | { kind: 'gone' };

/** Due schedules read at a time. */
const PAGE = 100;

const keyOf = (schedule: ScheduleRecord): string => JSON.stringify([schedule.projectId, schedule.dataset, schedule.documentId]);

/** Whether the schedule's dataset was taken out of its project: the schedule waits for it. */
const datasetRemoved = (project: ProjectRecord | undefined, dataset: string): boolean => project !== undefined && !project.datasets.includes(dataset);

/**
 * Publishes due drafts. Schedules live in the database, so they survive restarts; each one is
 * claimed in its own transaction (FOR UPDATE SKIP LOCKED on PostgreSQL), so with several
 * instances a schedule fires once. A schedule whose draft is gone is dropped. A pass walks every
 * due schedule in time order: one that fails, or waits for its dataset, does not hold back the
 * ones after it; it is tried again at the next pass.
 */
export class Scheduler {
  private readonly store: Store;
  private readonly intervalMs: number;
  private readonly log: Logger;
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  /** The error of each schedule that failed at its last try, so that a lasting fault is logged once. */
  private readonly failing = new Map<string, string>();

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

  /** One pass: publishes every due schedule it can; resolves to how many fired. Passes never overlap. */
  tick(): Promise<number> {
    this.running ??= this.runDue().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runDue(): Promise<number> {
    const now = this.now();
    let fired = 0;
    let after: ScheduleRecord | undefined;
    const seen = new Set<string>();
    // Read once a pass: the schedules of a removed dataset are passed over without a transaction each.
    const projects = new Map<string, Promise<ProjectRecord | undefined>>();
    const projectOf = (id: string): Promise<ProjectRecord | undefined> => {
      let project = projects.get(id);
      if (!project) {
        project = this.store.projects.findById(id);
        projects.set(id, project);
      }
      return project;
    };
    try {
      for (;;) {
        const page = await this.store.schedules.due(now.toISOString(), after, PAGE);
        for (const schedule of page) {
          seen.add(keyOf(schedule));
          if (datasetRemoved(await projectOf(schedule.projectId), schedule.dataset)) continue;
          if (await this.tryFiring(schedule, now)) fired++;
        }
        if (page.length < PAGE) break;
        after = page.at(-1);
      }
      // Forget the failures of schedules cancelled or moved since.
      for (const key of this.failing.keys()) if (!seen.has(key)) this.failing.delete(key);
      return fired;
    } catch (error) {
      this.log.error({ err: error }, 'reading due schedules failed; retrying at the next pass');
      return fired;
    }
  }

  /**
   * Fires one schedule; true when it published. A failure is logged (once while it lasts) and
   * leaves the schedule for the next pass.
   */
  private async tryFiring(schedule: ScheduleRecord, now: Date): Promise<boolean> {
    const key = keyOf(schedule);
    const { documentId, dataset } = schedule;
    try {
      const firing = await this.fire(schedule, now);
      this.failing.delete(key);
      if (firing.kind === 'published') this.log.info({ documentId, dataset }, 'scheduled publish');
      if (firing.kind === 'dropped') this.log.warn({ documentId, dataset, scheduledBy: schedule.createdBy }, `schedule dropped: ${firing.reason}`);
      return firing.kind === 'published';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.failing.get(key) !== message) {
        this.log.error({ err: error, documentId, dataset }, 'scheduled publish failed; it is tried again at each pass');
      }
      this.failing.set(key, message);
      return false;
    }
  }

  /**
   * Fires one due schedule in its own transaction. The document lock is taken before the schedule
   * row, in the same order as publish and schedule requests, so they cannot deadlock.
   */
  private fire(candidate: ScheduleRecord, now: Date): Promise<Firing> {
    const { projectId, dataset, documentId } = candidate;
    return this.store.transaction(async (tx): Promise<Firing> => {
      await tx.documents.lock(projectId, dataset, [documentId]);
      const due = await tx.schedules.claim(projectId, dataset, documentId, now.toISOString());
      if (!due) return { kind: 'gone' };
      // Checked again here: the dataset may have been taken out since the pass read the project.
      if (datasetRemoved(await tx.projects.findById(projectId), dataset)) return { kind: 'held' };
      if (!(await tx.documents.get(projectId, dataset, draftIdOf(documentId)))) {
        await tx.schedules.clear(projectId, dataset, documentId);
        return { kind: 'dropped', reason: 'draft gone' };
      }
      // A schedule publishes with its author's rights as they are when it fires, not as they were.
      if (!(await mayStillPublish(tx, projectId, dataset, due.createdBy))) {
        await tx.schedules.clear(projectId, dataset, documentId);
        return { kind: 'dropped', reason: 'no longer may publish' };
      }
      await withChangeSet(tx, { projectId, dataset, actorId: due.createdBy, now }, (changes) => publishIn(changes, documentId));
      return { kind: 'published' };
    });
  }
}
