import { badRequest } from '../errors.ts';
import type { Locales } from '../store/index.ts';

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,63}$';
export const DATASET_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
const LANGUAGE_ID = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;

export function assertSlug(slug: string): void {
  if (!new RegExp(SLUG_PATTERN).test(slug)) {
    throw badRequest('slug must be 1 to 64 lower-case letters, digits or dashes, starting with a letter or digit');
  }
}

export function validDatasets(datasets: string[]): string[] {
  if (datasets.length === 0) throw badRequest('datasets must name at least one dataset');
  const pattern = new RegExp(DATASET_PATTERN);
  for (const name of datasets) {
    if (!pattern.test(name)) {
      throw badRequest(`dataset "${name}" is invalid: use 1 to 64 lower-case letters, digits, "_" or "-"`);
    }
  }
  if (new Set(datasets).size !== datasets.length) throw badRequest('datasets must not repeat a name');
  return datasets;
}

/** `{default, languages: [{id, title}]}`: ids unique and well-formed, the default among them. */
export function validLocales(locales: Locales | null): Locales | null {
  if (locales === null) return null;
  if (locales.languages.length === 0) throw badRequest('locales.languages must list at least one language');
  const ids = locales.languages.map((language) => language.id);
  for (const id of ids) {
    if (!LANGUAGE_ID.test(id)) throw badRequest(`locales.languages: "${id}" is not a language id such as en or pt-BR`);
  }
  if (new Set(ids).size !== ids.length) throw badRequest('locales.languages must not repeat an id');
  if (!ids.includes(locales.default)) throw badRequest('locales.default must be one of locales.languages');
  return {
    default: locales.default,
    languages: locales.languages.map(({ id, title }) => ({ id, title })),
  };
}
