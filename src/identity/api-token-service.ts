import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../errors.ts';
import type { ApiTokenRecord, Store, TokenPermission } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import type { ProjectService } from '../projects/project-service.ts';
import { randomToken, sha256Hex } from './secrets.ts';
import { API_TOKEN_PREFIX } from './auth-service.ts';

export interface ApiTokenView {
  id: string;
  name: string;
  permissions: TokenPermission[];
  dataset: string | null;
  last_used_at: string | null;
  created_at: string;
}

export interface CreatedApiToken extends Omit<ApiTokenView, 'last_used_at'> {
  /** The raw token: returned once, never stored. */
  token: string;
}

export interface NewApiToken {
  name: string;
  permissions?: TokenPermission[];
  dataset?: string | null;
}

function toView(token: ApiTokenRecord): ApiTokenView {
  return {
    id: token.id,
    name: token.name,
    permissions: token.permissions,
    dataset: token.dataset,
    last_used_at: token.lastUsedAt,
    created_at: token.createdAt,
  };
}

/** Project API tokens: managed by project admins with an interactive session (never by tokens). */
export class ApiTokenService {
  private readonly store: Store;
  private readonly projects: ProjectService;
  private readonly now: () => Date;

  constructor(store: Store, projects: ProjectService, now: () => Date = () => new Date()) {
    this.store = store;
    this.projects = projects;
    this.now = now;
  }

  async list(actor: Principal, projectRef: string): Promise<ApiTokenView[]> {
    const project = await this.managedProject(actor, projectRef);
    return (await this.store.apiTokens.listByProject(project.id)).map(toView);
  }

  async create(actor: Principal, projectRef: string, input: NewApiToken): Promise<CreatedApiToken> {
    const project = await this.managedProject(actor, projectRef);
    const name = input.name.trim();
    if (name.length === 0) throw badRequest('name must not be empty');
    const permissions = [...new Set<TokenPermission>(input.permissions ?? ['read'])];
    if (permissions.length === 0) throw badRequest('permissions must contain read, write or both');
    const dataset = input.dataset ?? null;
    if (dataset !== null && !project.datasets.includes(dataset)) {
      throw badRequest(`dataset "${dataset}" is not a dataset of project "${project.slug}"`);
    }
    const token = `${API_TOKEN_PREFIX}${randomToken(32)}`;
    const record: ApiTokenRecord = {
      id: randomUUID(),
      projectId: project.id,
      name,
      permissions,
      dataset,
      tokenHash: sha256Hex(token),
      createdBy: actor.kind === 'user' ? actor.id : null,
      lastUsedAt: null,
      createdAt: this.now().toISOString(),
    };
    await this.store.apiTokens.insert(record);
    const { last_used_at: _unused, ...view } = toView(record);
    return { ...view, token };
  }

  async delete(actor: Principal, projectRef: string, id: string): Promise<{ deleted: true; id: string }> {
    const project = await this.managedProject(actor, projectRef);
    if (!(await this.store.apiTokens.delete(project.id, id))) throw notFound('API token not found');
    return { deleted: true, id };
  }

  /** A project the actor cannot see is 404 like an unknown one; one it sees without admin is 403. */
  private async managedProject(actor: Principal, projectRef: string) {
    return this.projects.administered(actor, projectRef);
  }
}
