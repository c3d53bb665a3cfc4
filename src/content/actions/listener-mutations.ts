import type { StoredDocument } from '../../store/index.ts';
import type { ChangeSet } from '../change-set.ts';

type Entry = { mutation: unknown } | { written: StoredDocument | null };

/**
 * What the actions of a request did to each document, as the mutations listeners replay
 * (docs/decisions.md "Real-time", "Actions"). Actions that create or patch are described by the
 * mutation that does the same (`create`, `createIfNotExists` of a draft made from the published
 * document, `patch`); the others by their result (`createOrReplace` of the document written,
 * `delete`). A document with only the latter stores nothing: the change log describes it the
 * same way when read. Once one of its changes is a create or a patch, all of them are recorded
 * in order, so that replaying them gives the document the transaction wrote.
 */
export class ListenerMutations {
  private readonly entries = new Map<string, Entry[]>();

  /** A change that `mutation` describes (as a client would have sent it). */
  sent(id: string, mutation: unknown): void {
    this.add(id, { mutation });
  }

  /** A change described by its result: the document written, or null for a deletion. */
  wrote(id: string, document: StoredDocument | null): void {
    this.add(id, { written: document });
  }

  /** Hands the recorded mutations to the change set, for the change log. */
  recordInto(changes: ChangeSet): void {
    for (const [id, entries] of this.entries) {
      if (!entries.some((entry) => 'mutation' in entry)) continue;
      for (const entry of entries) {
        if ('mutation' in entry) changes.record(id, entry.mutation);
        else changes.record(id, entry.written ? { createOrReplace: entry.written } : { delete: { id } });
      }
    }
  }

  private add(id: string, entry: Entry): void {
    const entries = this.entries.get(id);
    if (entries) entries.push(entry);
    else this.entries.set(id, [entry]);
  }
}
