import type { Dialect } from '../sql.ts';
import { identity } from './001-identity.ts';
import { documents } from './002-documents.ts';

/**
 * Versioned migrations, applied in order on start and by `cms migrate`. A migration is never edited
 * once released: a change to the schema is a new file with the next version.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: Readonly<Record<Dialect, string>>;
}

export const migrations: readonly Migration[] = [identity, documents];
