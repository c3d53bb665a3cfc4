import { AppError, badRequest, forbidden } from '../errors.ts';
import type { ProjectRecord } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { canSeeProject } from '../access/access-control.ts';
import type { ProjectService } from './project-service.ts';

export const PROJECT_HEADER = 'x-project';
export const SANITY_PROJECT_HEADER = 'x-sanity-project-id';

const projectNotFound = () => new AppError('PROJECT_NOT_FOUND', 'project not found');

/**
 * `/data/*` and `/assets/*` paths name a dataset, not a project. The project is, in
 * order: the API token's own project (naming another is 403); the one the request names (header
 * X-Project or X-Sanity-Project-ID, else query `project`: slug or id); otherwise the only project,
 * among those the principal can see, whose datasets contain the dataset. A dataset the project
 * does not have is 404.
 */
export async function resolveDataProject(
  projects: ProjectService,
  principal: Principal,
  dataset: string,
  named: string | undefined,
): Promise<ProjectRecord> {
  const project = await pickProject(projects, principal, dataset, named);
  if (!project.datasets.includes(dataset)) {
    throw new AppError('NOT_FOUND', `dataset "${dataset}" not found in project "${project.slug}"`);
  }
  return project;
}

async function pickProject(
  projects: ProjectService,
  principal: Principal,
  dataset: string,
  named: string | undefined,
): Promise<ProjectRecord> {
  if (principal.kind === 'token') {
    const own = await projects.findBySlugOrId(principal.projectId);
    if (!own) throw projectNotFound();
    if (named !== undefined && named !== own.id && named !== own.slug) {
      throw forbidden('This API token belongs to another project');
    }
    return own;
  }
  if (named !== undefined) {
    const project = await projects.findBySlugOrId(named);
    if (!project || !canSeeProject(principal, project)) throw projectNotFound();
    return project;
  }
  const [only, ...others] = (await projects.visibleRecords(principal)).filter((project) => project.datasets.includes(dataset));
  if (!only) throw projectNotFound();
  if (others.length > 0) {
    throw badRequest(`Several projects have a dataset "${dataset}": name one with the X-Project header (slug or id)`);
  }
  return only;
}
