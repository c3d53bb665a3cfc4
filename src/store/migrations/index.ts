import type { Dialect } from '../sql.ts';
import { identity } from './001-identity.ts';
import { documents } from './002-documents.ts';
import { assets } from './003-assets.ts';
import { webhooks } from './004-webhooks.ts';
import { documentChanges } from './005-document-changes.ts';
import { documentIndex } from './006-document-index.ts';
import { documentStorage } from './007-document-storage.ts';
import { transactionIds } from './008-transaction-ids.ts';
import { changeMutations } from './009-change-mutations.ts';
import { studio } from './010-studio.ts';
import { transactionHistory } from './011-transaction-history.ts';
import { valueNumbers } from './012-value-numbers.ts';
import { sqliteValueNumbers } from './013-sqlite-value-numbers.ts';
import { documentTextBytes } from './014-document-text-bytes.ts';
import { deliveryLogIndex } from './015-delivery-log-index.ts';
import { revisionTextBytes } from './016-revision-text-bytes.ts';
import { heapBytes } from './017-heap-bytes.ts';

/**
 * Versioned migrations, applied in order on start and by `cms migrate`. A migration is never edited
 * once released: a change to the schema is a new file with the next version.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The DDL, written once with the column types that differ between engines filled in (or per engine). */
  readonly sql: (types: ColumnTypes, dialect: Dialect) => string;
}

/** Column types that differ: ISO text and JSON text in SQLite, native types in PostgreSQL. */
export interface ColumnTypes {
  readonly timestamp: string;
  readonly json: string;
  /** JSON stored parsed, for reading fields in SQL: jsonb, or SQLite's binary JSON in a BLOB. */
  readonly binaryJson: string;
  /** A small integer flag (0/1): both engines bind the same values. */
  readonly flag: string;
  /** An increasing integer primary key. */
  readonly serialKey: string;
  /** Text compared byte by byte (document ids: both engines order them the same way). */
  readonly binaryText: string;
  /**
   * The writing transaction, for readers that must never pass one still in progress: its 64-bit
   * id on PostgreSQL, where concurrent transactions take serial numbers in one order and commit in
   * another; a constant on SQLite, which commits one writer at a time in serial order.
   */
  readonly transactionOrder: string;
  /** Appended to CREATE TABLE for a table stored in its primary key's order (SQLite: WITHOUT ROWID). */
  readonly keyedTable: string;
}

export const COLUMN_TYPES: Readonly<Record<Dialect, ColumnTypes>> = {
  sqlite: { timestamp: 'TEXT', json: 'TEXT', binaryJson: 'BLOB', flag: 'INTEGER', serialKey: 'INTEGER PRIMARY KEY AUTOINCREMENT', binaryText: 'TEXT', transactionOrder: 'INTEGER NOT NULL DEFAULT 0', keyedTable: ' WITHOUT ROWID' },
  postgres: { timestamp: 'TIMESTAMPTZ', json: 'JSONB', binaryJson: 'JSONB', flag: 'SMALLINT', serialKey: 'BIGSERIAL PRIMARY KEY', binaryText: 'TEXT COLLATE "C"', transactionOrder: 'xid8 NOT NULL DEFAULT pg_current_xact_id()', keyedTable: '' },
};

export const migrations: readonly Migration[] = [identity, documents, assets, webhooks, documentChanges, documentIndex, documentStorage, transactionIds, changeMutations, studio, transactionHistory, valueNumbers, sqliteValueNumbers, documentTextBytes, deliveryLogIndex, revisionTextBytes, heapBytes];
