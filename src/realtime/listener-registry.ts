import type { StoredDocument } from '../store/index.ts';
import type { StoredDocumentChange } from '../store/repos/document-changes.ts';
import type { ListenFilter } from './listen-filter.ts';
import { optionsKey, type ListenOptions } from './listen-options.ts';
import { PreparedMutationEvent, transitionOf } from './mutation-event.ts';

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
}

interface FilterGroup {
  readonly filter: ListenFilter;
  readonly listeners: Set<Listener>;
}

const datasetKey = (projectId: string, dataset: string) => `${projectId}\u0000${dataset}`;

/**
 * The listeners of this instance, grouped by dataset and then by filter, so that a change is
 * judged once per distinct filter and serialized once per option set, whether ten listeners or a
 * thousand share them.
 */
export class ListenerRegistry {
  private readonly datasets = new Map<string, Map<string, FilterGroup>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(listener: Listener): void {
    const key = datasetKey(listener.projectId, listener.dataset);
    let groups = this.datasets.get(key);
    if (!groups) {
      groups = new Map();
      this.datasets.set(key, groups);
    }
    let group = groups.get(listener.filter.key);
    if (!group) {
      group = { filter: listener.filter, listeners: new Set() };
      groups.set(listener.filter.key, group);
    }
    if (!group.listeners.has(listener)) {
      group.listeners.add(listener);
      this.count++;
    }
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

  /** Sends the change to every listener whose filter matched the document before or after it. */
  async dispatch(change: StoredDocumentChange, before: StoredDocument | null, after: StoredDocument | null): Promise<void> {
    const groups = this.datasets.get(datasetKey(change.projectId, change.dataset));
    if (!groups) return;
    const prepared = new Map<string, PreparedMutationEvent>();
    for (const group of [...groups.values()]) {
      const matchedBefore = before !== null && (await group.filter.matches(before));
      const matchesAfter = after !== null && (await group.filter.matches(after));
      const transition = transitionOf(matchedBefore, matchesAfter);
      if (!transition) continue;
      for (const listener of [...group.listeners]) {
        const key = `${transition}:${optionsKey(listener.options)}`;
        let event = prepared.get(key);
        if (!event) {
          event = new PreparedMutationEvent(change, transition, before, after, listener.options);
          prepared.set(key, event);
        }
        listener.deliver(event);
      }
    }
  }
}
