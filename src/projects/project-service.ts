import { randomUUID } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound, type AppError } from '../errors.ts';
import type { Locales, ProjectRecord, Store } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { canSeeProject, requireGlobalAdmin, requireProjectRole, requireSession, visibleProject } from '../access/access-control.ts';
import { assertSlug, validDatasets, validLocales } from './validation.ts';
import { grantsIn, type Grant } from '../access/grants.ts';
import { RecentReads } from '../access/recent-reads.ts';
import { sanityDatasets, sanityProject, type SanityDataset, type SanityProject } from './sanity-project.ts';

/** A project as the API shows it. */
export interface ProjectView {
  id: string;
  name: string;
  slug: string;
  datasets: string[];
  locales?: Locales | null;
  created_at: string;
  updated_at: string;
}

export function toProjectView(project: ProjectRecord, withLocales = true): ProjectView {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    datasets: project.datasets,
    ...(withLocales ? { locales: project.locales } : {}),
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

export interface NewProject {
  name: string;
  slug: string;
  datasets?: string[];
}

export interface ProjectUpdate {
  name?: string;
  datasets?: string[];
  locales?: Locales | null;
}

export class ProjectService {
  private readonly store: Store;
  private readonly now: () => Date;

  /** Projects read for requests, by slug or id: forgotten when this service changes one. */
  private readonly recent = new RecentReads<ProjectRecord>();

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  async list(actor: Principal): Promise<ProjectView[]> {
    return (await this.visibleRecords(actor)).map((project) => toProjectView(project));
  }

  async visibleRecords(actor: Principal): Promise<ProjectRecord[]> {
    return (await this.store.projects.list()).filter((project) => canSeeProject(actor, project));
  }

  async create(actor: Principal, input: NewProject): Promise<ProjectView> {
    requireGlobalAdmin(actor);
    const name = input.name.trim();
    if (name.length === 0) throw badRequest('name must not be empty');
    assertSlug(input.slug);
    const datasets = validDatasets(input.datasets ?? ['production']);
    if (await this.store.projects.findBySlug(input.slug)) throw conflict(`A project with slug "${input.slug}" already exists`);
    const now = this.now().toISOString();
    const project: ProjectRecord = { id: randomUUID(), name, slug: input.slug, datasets, locales: null, createdAt: now, updatedAt: now };
    try {
      await this.store.projects.insert(project);
    } catch (error) {
      if (await this.store.projects.findBySlug(input.slug)) throw conflict(`A project with slug "${input.slug}" already exists`);
      throw error;
    }
    // The create response omits locales, as the API documents.
    return toProjectView(project, false);
  }

  async get(actor: Principal, slug: string): Promise<ProjectView> {
    return toProjectView(await this.visible(actor, slug));
  }

  async update(actor: Principal, slug: string, changes: ProjectUpdate): Promise<ProjectView> {
    requireGlobalAdmin(actor);
    const project = await this.store.projects.findBySlug(slug);
    if (!project) throw notFound(`Project "${slug}" not found`);
    let name: string | undefined;
    if (changes.name !== undefined) {
      name = changes.name.trim();
      if (name.length === 0) throw badRequest('name must not be empty');
    }
    await this.store.projects.update(
      project.id,
      {
        name,
        datasets: changes.datasets === undefined ? undefined : validDatasets(changes.datasets),
        locales: changes.locales === undefined ? undefined : validLocales(changes.locales),
      },
      this.now().toISOString(),
    );
    this.recent.forget();
    const updated = await this.store.projects.findById(project.id);
    if (!updated) throw notFound(`Project "${slug}" not found`);
    return toProjectView(updated);
  }

  /** A project by slug (or id) that the actor may see; 404 otherwise, 403 for a token's other project. */
  async visible(actor: Principal, slugOrId: string): Promise<ProjectRecord> {
    const project = await this.findBySlugOrId(slugOrId);
    if (!project) throw notFound(`Project "${slugOrId}" not found`);
    if (!canSeeProject(actor, project)) {
      if (actor.kind === 'token') throw forbidden('This API token belongs to another project');
      throw notFound(`Project "${slugOrId}" not found`);
    }
    return project;
  }

  /**
   * A project the actor administers through a signed-in session (API tokens, webhooks, CORS
   * origins). One the actor cannot see answers as an unknown one (`missing`, 404 by default), so
   * the answer never tells which slugs exist.
   */
  async administered(actor: Principal, slugOrId: string, missing: () => AppError = () => notFound(`Project "${slugOrId}" not found`)): Promise<ProjectRecord> {
    requireSession(actor);
    const project = visibleProject(actor, await this.findBySlugOrId(slugOrId), missing);
    requireProjectRole(actor, project, 'admin', { sessionOnly: true });
    return project;
  }

  /** The project in Sanity's shape, with its members (Studio lists them, e.g. to mention someone). */
  async sanityView(actor: Principal, slugOrId: string): Promise<SanityProject> {
    const project = await this.visible(actor, slugOrId);
    return sanityProject(project, await this.store.users.list(), actor.kind === 'user' ? actor.id : null);
  }

  async sanityDatasets(actor: Principal, slugOrId: string): Promise<SanityDataset[]> {
    return sanityDatasets(await this.visible(actor, slugOrId));
  }

  /** The document grants of the actor in a dataset (Sanity's dataset ACL, which Studio evaluates). */
  async grants(actor: Principal, slugOrId: string, dataset: string): Promise<Grant[]> {
    const project = await this.visible(actor, slugOrId);
    if (!project.datasets.includes(dataset)) throw notFound(`dataset "${dataset}" not found in project "${project.slug}"`);
    return grantsIn(actor, project, dataset);
  }

  /** As stored at most RECENT_READ_MS ago (at once after a change made through this service). */
  async findBySlugOrId(slugOrId: string): Promise<ProjectRecord | undefined> {
    return this.recent.get(slugOrId, async () => (await this.store.projects.findBySlug(slugOrId)) ?? (await this.store.projects.findById(slugOrId)));
  }
}
