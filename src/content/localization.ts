import { badRequest } from '../errors.ts';
import type { Locales } from '../store/index.ts';
import { ownValue, setOwn } from '../json/own-properties.ts';

/**
 * Localized fields: with `?language=xx`, an object whose keys other than `_type` and
 * `_key` are a non-empty subset of the project's language ids is replaced by its `xx` value,
 * falling back to the default language, else null. Everything else is walked recursively.
 */
export type Localizer = (value: unknown) => unknown;

const IGNORED_KEYS = new Set(['_type', '_key']);

export function localizerFor(locales: Locales | null, language: string | undefined): Localizer | undefined {
  if (language === undefined) return undefined;
  const ids = new Set(locales?.languages.map((entry) => entry.id) ?? []);
  if (!ids.has(language)) {
    throw badRequest(
      ids.size === 0
        ? `language "${language}" is not available: the project has no locales`
        : `language "${language}" is not one of the project's languages (${[...ids].join(', ')})`,
    );
  }
  const fallback = locales?.default;

  const localize = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(localize);
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => !IGNORED_KEYS.has(key));
    if (keys.length > 0 && keys.every((key) => ids.has(key))) {
      const chosen = ownValue(record, language) ?? (fallback === undefined ? undefined : ownValue(record, fallback));
      return chosen === undefined ? null : localize(chosen);
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) setOwn(out, key, localize(child));
    return out;
  };
  return localize;
}
