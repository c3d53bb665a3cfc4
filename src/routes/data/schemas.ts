import { DOCUMENT_ID_PATTERN } from '../../content/document-ids.ts';
import { DATASET_PATTERN } from '../../projects/validation.ts';

/** Schemas shared by the /data routes. */
export const datasetParam = { type: 'string', pattern: DATASET_PATTERN } as const;
export const documentIdParam = { type: 'string', pattern: DOCUMENT_ID_PATTERN } as const;
/** One id, or up to 100 comma-separated ids. */
export const DOCUMENT_IDS_PATTERN = `^(?:${DOCUMENT_ID_PATTERN.slice(1, -1)})(?:,(?:${DOCUMENT_ID_PATTERN.slice(1, -1)})){0,99}$`;
export const documentIdsParam = { type: 'string', pattern: DOCUMENT_IDS_PATTERN } as const;

export const datasetParams = { type: 'object', properties: { dataset: datasetParam }, required: ['dataset'] } as const;
export const documentParams = {
  type: 'object',
  properties: { dataset: datasetParam, documentId: documentIdParam },
  required: ['dataset', 'documentId'],
} as const;

/** Every /data route may name its project in the query (or with the X-Project header). */
export const projectQuery = { project: { type: 'string', description: 'Project slug or id (else header X-Project)' } } as const;

export const documentSchema = {
  type: 'object',
  description: 'A document: _id, _type, _rev, _createdAt, _updatedAt and its own fields',
  properties: {
    _id: { type: 'string' },
    _type: { type: 'string' },
    _rev: { type: 'string' },
    _createdAt: { type: 'string' },
    _updatedAt: { type: 'string' },
  },
  additionalProperties: true,
} as const;

export const languageQuery = {
  language: { type: 'string', minLength: 1, maxLength: 35, description: "Resolve localized fields to this language of the project's locales" },
} as const;

/** Request bodies of the routes that write a transaction (mutations, actions). */
export const WRITE_BODY_LIMIT = 16 * 1024 * 1024;

/** What every transaction-writing route takes in its query string as Sanity's clients send it. */
export interface WriteQuery {
  dryRun?: boolean;
  transactionId?: string;
  autoGenerateArrayKeys?: boolean;
}

export const writeQuery = {
  autoGenerateArrayKeys: { type: 'boolean', description: 'Add _key to array objects that have none' },
  transactionId: { type: 'string', description: 'Use this id for the transaction (also accepted in the body)' },
  skipCrossDatasetReferenceValidation: { type: 'boolean', description: 'Accepted; there are no cross-dataset references' },
  tag: { type: 'string' },
  ...projectQuery,
} as const;

/**
 * The answer to a write: its transaction id and, per document it wrote (or, in a dry run, would
 * write), the operation done (and the document, where `resultRequired` names it).
 */
export function writeAnswerSchema(
  operations: readonly string[],
  resultRequired: readonly string[],
  answer: { required: readonly string[]; resultsDescription?: string; documentIds?: boolean },
) {
  return {
    type: 'object',
    properties: {
      transactionId: { type: 'string' },
      results: {
        type: 'array',
        ...(answer.resultsDescription ? { description: answer.resultsDescription } : {}),
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, operation: { type: 'string', enum: operations }, document: { ...documentSchema, nullable: true } },
          required: resultRequired,
        },
      },
      ...(answer.documentIds ? { documentIds: { type: 'array', items: { type: 'string' } } } : {}),
    },
    required: answer.required,
  } as const;
}
