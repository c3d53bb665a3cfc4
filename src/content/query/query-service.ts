import { badRequest, AppError } from '../../errors.ts';
import type { ProjectRecord, Store } from '../../store/index.ts';
import type { Principal } from '../../access/principal.ts';
import { requireProjectRole } from '../../access/access-control.ts';
import { evaluate, GroqParameterError, GroqSyntaxError } from '../../groq/index.ts';
import { localizerFor } from '../localization.ts';
import { StoreDocumentSource } from './store-document-source.ts';
import { withPerspective } from './perspective-source.ts';

/** Which documents `*` sees: all (raw), published only, or drafts in place of their published form. */
export const PERSPECTIVES = ['raw', 'published', 'drafts', 'previewDrafts'] as const;
export type Perspective = (typeof PERSPECTIVES)[number];

export interface QueryRequest {
  query: string;
  /** `$name` values; keys may be given with or without the `$`. */
  params?: Record<string, unknown>;
  language?: string;
  perspective?: Perspective;
}

export interface QueryResponse {
  query: string;
  /** Server time spent on the query, in milliseconds. */
  ms: number;
  result: unknown;
}

/** POST /data/query: GROQ over a dataset (drafts and published documents alike). */
export class QueryService {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async query(actor: Principal, project: ProjectRecord, dataset: string, request: QueryRequest): Promise<QueryResponse> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const localize = localizerFor(project.locales, request.language);
    const params = Object.fromEntries(Object.entries(request.params ?? {}).map(([name, value]) => [name.replace(/^\$/, ''), value]));
    const started = performance.now();
    let result: unknown;
    try {
      result = await evaluate(request.query, {
        source: withPerspective(new StoreDocumentSource(this.store, project.id, dataset), request.perspective),
        params,
        project: { projectId: project.id, dataset },
      });
    } catch (error) {
      if (error instanceof GroqSyntaxError) {
        throw badRequest(`GROQ syntax error at line ${error.line}, column ${error.column} (position ${error.position}): ${error.detail}`);
      }
      if (error instanceof GroqParameterError) throw badRequest(`The query uses $${error.parameter}, which is not in params`);
      throw new AppError('INTERNAL', 'The query could not be executed');
    }
    if (localize) result = localize(result);
    return { query: request.query, ms: Math.round((performance.now() - started) * 1000) / 1000, result };
  }
}
