import { committedAt, type CommitHorizon, type LogPosition } from '../store/commit-order.ts';
import type { FilterTooCostly, ListenFilter } from './listen-filter.ts';
import type { ListenOptions } from './listen-options.ts';
import type { PreparedMutationEvent } from './mutation-event.ts';

/** One subscription: a filter on one dataset, and where its events go. */
export interface Listener {
  /** Sent to the client in the welcome message. */
  readonly id: string;
  readonly projectId: string;
  readonly dataset: string;
  readonly filter: ListenFilter;
  readonly options: ListenOptions;
  /** Sends the event without waiting; a transport that cannot keep up disconnects its client. */
  deliver(event: PreparedMutationEvent): void;
  /** The filter costs more than it may (FilterTooCostly): tell the client why, and stop listening. */
  dismiss(reason: FilterTooCostly): void;
}

interface FilterGroup {
  readonly filter: ListenFilter;
  /** Each listener with what had committed when it subscribed (it gets none of that). */
  readonly listeners: Map<Listener, CommitHorizon>;
}

/** Listeners that share a filter, and so get the same events (in the shapes their options ask for). */
export interface ListenerGroup {
  readonly filter: ListenFilter;
  readonly listeners: readonly Listener[];
}

const datasetKey = (projectId: string, dataset: string) => `${projectId}\u0000${dataset}`;

/**
 * The listeners of this instance, grouped by dataset and then by filter, so that a change is
 * judged once per distinct filter and serialized once per option set, whether ten listeners or a
 * thousand share them (transaction-events.ts sends them).
 */
export class ListenerRegistry {
  private readonly datasets = new Map<string, Map<string, FilterGroup>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `listener`, to get the changes that had not committed at `since`. */
  add(listener: Listener, since: CommitHorizon): void {
    const key = datasetKey(listener.projectId, listener.dataset);
    let groups = this.datasets.get(key);
    if (!groups) {
      groups = new Map();
      this.datasets.set(key, groups);
    }
    let group = groups.get(listener.filter.key);
    if (!group) {
      group = { filter: listener.filter, listeners: new Map() };
      groups.set(listener.filter.key, group);
    }
    if (!group.listeners.has(listener)) this.count++;
    group.listeners.set(listener, since);
  }

  delete(listener: Listener): void {
    const key = datasetKey(listener.projectId, listener.dataset);
    const groups = this.datasets.get(key);
    const group = groups?.get(listener.filter.key);
    if (!groups || !group?.listeners.delete(listener)) return;
    this.count--;
    if (group.listeners.size === 0) groups.delete(listener.filter.key);
    if (groups.size === 0) this.datasets.delete(key);
  }

  /** Whether any listener here wants changes of this dataset (else a change is skipped unread). */
  watches(projectId: string, dataset: string): boolean {
    return this.datasets.has(datasetKey(projectId, dataset));
  }

  /** Whether `listener` is still subscribed (a replaced or closed subscription gets nothing more). */
  has(listener: Listener): boolean {
    return this.datasets.get(datasetKey(listener.projectId, listener.dataset))?.get(listener.filter.key)?.listeners.has(listener) ?? false;
  }

  /**
   * The filters of a dataset with the listeners, as they are now, that subscribed before the
   * transaction at `position` committed: a listener gets no change from before its welcome, even
   * one this instance's feed reads late.
   */
  groupsOf(projectId: string, dataset: string, position: LogPosition): ListenerGroup[] {
    const groups = this.datasets.get(datasetKey(projectId, dataset));
    const result: ListenerGroup[] = [];
    for (const group of groups?.values() ?? []) {
      const listeners = [...group.listeners].filter(([, since]) => !committedAt(since, position)).map(([listener]) => listener);
      if (listeners.length > 0) result.push({ filter: group.filter, listeners });
    }
    return result;
  }
}
