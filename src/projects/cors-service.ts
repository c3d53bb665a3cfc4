import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { CorsOriginRecord, Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { normalizeOrigin } from '../http/origins.ts';
import type { ProjectService } from './project-service.ts';

/** How the API answers a browser page from some origin: allowed, and whether with its cookies. */
export interface OriginPolicy {
  credentials: boolean;
}

export interface CorsOriginView {
  id: string;
  projectId: string;
  origin: string;
  allowCredentials: boolean;
  createdAt: string;
}

export const MAX_CORS_ORIGINS_PER_PROJECT = 100;
/** Another instance's change is seen within this time. */
const POLICY_TTL_MS = 5_000;

const view = (entry: CorsOriginRecord): CorsOriginView => ({ ...entry });

/**
 * The origins browsers may call the API from (Sanity's per-project CORS origins): those in
 * CORS_ORIGINS, with credentials, for every project, and those each project's admins add through
 * the API. A preflight names no project (its headers are not sent), so an origin that any project
 * allows is allowed; what a request may then do is decided by its credential, as always.
 */
export class CorsService {
  private readonly store: Store;
  private readonly projects: ProjectService;
  private readonly configured: ReadonlySet<string>;
  private readonly policies = new LRUCache<string, OriginPolicy | 'denied'>({ max: 1000, ttl: POLICY_TTL_MS });
  private readonly now: () => Date;

  constructor(store: Store, projects: ProjectService, configured: readonly string[], now: () => Date = () => new Date()) {
    this.store = store;
    this.projects = projects;
    this.configured = new Set(configured);
    this.now = now;
  }

  async policyFor(origin: string): Promise<OriginPolicy | undefined> {
    if (this.configured.has(origin)) return { credentials: true };
    let policy = this.policies.get(origin);
    if (policy === undefined) {
      const entries = await this.store.corsOrigins.findByOrigin(origin);
      policy = entries.length === 0 ? 'denied' : { credentials: entries.some((entry) => entry.allowCredentials) };
      this.policies.set(origin, policy);
    }
    return policy === 'denied' ? undefined : policy;
  }

  async list(actor: Principal, projectRef: string): Promise<CorsOriginView[]> {
    const project = await this.projects.administered(actor, projectRef);
    return (await this.store.corsOrigins.listByProject(project.id)).map(view);
  }

  async add(actor: Principal, projectRef: string, input: { origin: string; allowCredentials?: boolean }): Promise<CorsOriginView> {
    const project = await this.projects.administered(actor, projectRef);
    const origin = normalizeOrigin(input.origin);
    if (origin === undefined) throw badRequest(`origin must be a scheme, host and optional port, such as https://studio.example.com (got "${input.origin}")`);
    const entry: CorsOriginRecord = { id: randomUUID(), projectId: project.id, origin, allowCredentials: input.allowCredentials === true, createdAt: this.now().toISOString() };
    // Concurrent adds to one project run one after the other, so neither the limit nor the unique origin can be raced past.
    await this.store.transaction(async (tx) => {
      const existing = await tx.corsOrigins.listHeld(project.id);
      if (existing.some((other) => other.origin === origin)) throw conflict(`The origin ${origin} is already allowed in this project`);
      if (existing.length >= MAX_CORS_ORIGINS_PER_PROJECT) throw badRequest(`A project allows at most ${MAX_CORS_ORIGINS_PER_PROJECT} origins`);
      await tx.corsOrigins.insert(entry);
    });
    this.policies.delete(origin);
    return view(entry);
  }

  async remove(actor: Principal, projectRef: string, id: string): Promise<{ deleted: true; id: string }> {
    const project = await this.projects.administered(actor, projectRef);
    const entry = (await this.store.corsOrigins.listByProject(project.id)).find((candidate) => candidate.id === id);
    if (!entry || !(await this.store.corsOrigins.delete(project.id, id))) throw notFound(`CORS origin "${id}" not found`);
    this.policies.delete(entry.origin);
    return { deleted: true, id };
  }
}
