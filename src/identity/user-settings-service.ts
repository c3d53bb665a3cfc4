import { badRequest, forbidden } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';

/** One setting: Studio's key-value store entry (`value` null: not set). */
export interface SettingEntry {
  key: string;
  value: unknown;
}

export const MAX_SETTINGS_PER_USER = 1000;
export const MAX_SETTING_BYTES = 64 * 1024;
/** Keys are listed comma-separated in a path: no commas, slashes or spaces. */
const KEY = /^[A-Za-z0-9_.:@-]{1,200}$/;

/**
 * Each user's small UI settings (Sanity's `/users/me/keyvalue`: Studio keeps pane layouts, sort
 * orders and what the user has seen there). Only the user reads and writes their own.
 */
export class UserSettingsService {
  private readonly store: Store;
  private readonly now: () => Date;

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  async get(actor: Principal, keys: readonly string[]): Promise<SettingEntry[]> {
    const userId = userOf(actor);
    for (const key of keys) validKey(key);
    const found = await this.store.userSettings.get(userId, [...new Set(keys)]);
    return keys.map((key) => ({ key, value: found.get(key) ?? null }));
  }

  /** Sets each entry (null removes it) and answers with what was set, as Studio expects. */
  async put(actor: Principal, entries: readonly SettingEntry[]): Promise<SettingEntry[]> {
    const userId = userOf(actor);
    for (const { key, value } of entries) {
      validKey(key);
      if (value !== null && Buffer.byteLength(JSON.stringify(value) ?? 'null') > MAX_SETTING_BYTES) throw badRequest(`the value of "${key}" is larger than ${MAX_SETTING_BYTES} bytes`);
    }
    const now = this.now().toISOString();
    await this.store.transaction(async (tx) => {
      for (const { key, value } of entries) {
        if (value === null) await tx.userSettings.delete(userId, key);
        else await tx.userSettings.put(userId, key, value, now);
      }
      if ((await tx.userSettings.count(userId)) > MAX_SETTINGS_PER_USER) throw badRequest(`a user keeps at most ${MAX_SETTINGS_PER_USER} settings`);
    });
    return entries.map(({ key, value }) => ({ key, value }));
  }
}

function userOf(actor: Principal): string {
  if (actor.kind !== 'user') throw forbidden('API tokens have no user settings');
  return actor.id;
}

function validKey(key: string): void {
  if (!KEY.test(key)) throw badRequest(`"${key}" is not a settings key: 1 to 200 letters, digits, ".", "_", "-", ":" or "@"`);
}
