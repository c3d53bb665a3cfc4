import type { StoredDocumentChange } from '../store/repos/document-changes.ts';
import type { DocumentStates } from './document-states.ts';
import { optionsKey } from './listen-options.ts';
import type { ListenerGroup, ListenerRegistry } from './listener-registry.ts';
import { FilterTooCostly } from './listen-filter.ts';
import { ObservedChange, PreparedMutationEvent, transitionOf, type Transition } from './mutation-event.ts';

/**
 * The documents of a transaction up to this many are kept in memory between working out which
 * listeners get which events and sending them; a bigger transaction (an import) reads them again.
 */
const KEPT_CHANGES = 500;

/**
 * Sends the events of one committed transaction (its changes in one dataset, in log order) to the
 * listeners of the dataset as they are when it starts, that subscribed before it committed. Every
 * event says how many events of the transaction its listener gets and which one it is (Sanity's
 * transactionTotalEvents and transactionCurrentEvent, which Studio waits on before it applies a
 * multi-document transaction), so all of a transaction's changes are judged before the first
 * event leaves.
 * Listeners sharing a filter get the same events; each option set's text is made once.
 */
export async function sendTransactionEvents(
  registry: ListenerRegistry,
  states: DocumentStates,
  changes: readonly StoredDocumentChange[],
): Promise<void> {
  const first = changes[0];
  if (!first) return;
  const groups = registry.groupsOf(first.projectId, first.dataset, first.position);
  if (groups.length === 0) return;
  const keep = changes.length <= KEPT_CHANGES;
  const observed: (ObservedChange | undefined)[] = [];
  // transitions[g][i]: what change i is to group g's filter (null: no event).
  const transitions = groups.map(() => new Array<Transition | null>(changes.length).fill(null));
  const totals = groups.map(() => 0);
  // Groups whose filter cost more than it may: their listeners are closed, and the filter is not judged again.
  const dismissed = new Set<number>();
  for (const [index, change] of changes.entries()) {
    const { before, after } = await states.around(change);
    for (const [g, group] of groups.entries()) {
      if (dismissed.has(g)) continue;
      try {
        const transition = await transitionFor(group, before, after);
        transitions[g]![index] = transition;
        if (transition) totals[g]!++;
      } catch (error) {
        if (!(error instanceof FilterTooCostly)) throw error;
        dismissed.add(g);
        for (const listener of group.listeners) listener.dismiss(error);
      }
    }
    if (keep) observed[index] = new ObservedChange(change, before, after);
  }
  const sent = groups.map(() => 0);
  for (const [index, change] of changes.entries()) {
    if (!transitions.some((forGroup) => forGroup[index])) continue;
    let observation = observed[index];
    if (!observation) {
      const { before, after } = await states.around(change);
      observation = new ObservedChange(change, before, after);
    }
    const prepared = new Map<string, PreparedMutationEvent>();
    for (const [g, group] of groups.entries()) {
      const transition = transitions[g]![index];
      if (!transition) continue;
      const place = { total: totals[g]!, current: sent[g]!++ };
      for (const listener of group.listeners) {
        if (!registry.has(listener)) continue;
        const key = `${transition}:${place.total}:${place.current}:${optionsKey(listener.options)}`;
        let event = prepared.get(key);
        if (!event) {
          event = new PreparedMutationEvent(observation, transition, place, listener.options);
          prepared.set(key, event);
        }
        listener.deliver(event);
      }
    }
  }
}

async function transitionFor(group: ListenerGroup, before: ObservedChange['before'], after: ObservedChange['after']): Promise<Transition | null> {
  const matchedBefore = before !== null && (await group.filter.matches(before));
  const matchesAfter = after !== null && (await group.filter.matches(after));
  return transitionOf(matchedBefore, matchesAfter);
}
