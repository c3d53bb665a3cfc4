import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { resolveDataProject } from '../../src/projects/data-project-resolver.ts';
import type { Principal } from '../../src/access/principal.ts';
import { AppError } from '../../src/errors.ts';

/**
 * The rule for the project of a /data or /assets route, exercised on the real store with
 * real principals (the data routes arrive with the documents issue and call this same function).
 */
describe(`project resolution for data routes (${testEngine})`, () => {
  const app = useTestApp();

  const principalOf = (token: string) => app.services.auth.authenticate(token);
  const resolve = async (principal: Principal, dataset: string, named?: string) =>
    resolveDataProject(app.services.projects, principal, dataset, named);
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof AppError) return { status: error.statusCode, message: error.message };
      throw error;
    }
    throw new Error('expected a failure');
  };

  it("takes an API token's own project and refuses an explicitly different one with 403", async () => {
    const mine = await createProject(app, app.admin, ['tokends']);
    const other = await createProject(app, app.admin, ['tokends']);
    const token = await principalOf((await createApiToken(app, app.admin, mine.slug)).token);
    expect((await resolve(token, 'tokends')).id).toBe(mine.id);
    expect((await resolve(token, 'tokends', mine.slug)).id).toBe(mine.id);
    expect((await resolve(token, 'tokends', mine.id)).id).toBe(mine.id);
    expect(await failure(resolve(token, 'tokends', other.slug))).toMatchObject({ status: 403 });
  });

  it('takes the named project (slug or id), 404 "project not found" when unknown', async () => {
    const project = await createProject(app, app.admin, ['named']);
    const user = await principalOf(app.admin);
    expect((await resolve(user, 'named', project.slug)).id).toBe(project.id);
    expect((await resolve(user, 'named', project.id)).id).toBe(project.id);
    expect(await failure(resolve(user, 'named', 'no-such-project'))).toEqual({ status: 404, message: 'project not found' });
  });

  it('otherwise takes the only project with the dataset; none is 404, several is 400 naming the header', async () => {
    const project = await createProject(app, app.admin, [`only-${Date.now()}`]);
    const user = await principalOf(app.admin);
    expect((await resolve(user, project.datasets[0]!)).id).toBe(project.id);
    expect(await failure(resolve(user, 'nowhere-dataset'))).toEqual({ status: 404, message: 'project not found' });
    await createProject(app, app.admin, ['shared-ds']);
    await createProject(app, app.admin, ['shared-ds']);
    const ambiguous = await failure(resolve(user, 'shared-ds'));
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.message).toContain('X-Project');
  });

  it('only considers projects the user can see', async () => {
    const visible = await createProject(app, app.admin, ['seen-ds']);
    await createProject(app, app.admin, ['seen-ds']);
    const restricted = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: visible.id, role: 'viewer' }] });
    expect((await resolve(await principalOf(restricted.token), 'seen-ds')).id).toBe(visible.id);
  });

  it('answers 404 for a dataset the project does not have', async () => {
    const project = await createProject(app, app.admin, ['production']);
    const failed = await failure(resolve(await principalOf(app.admin), 'staging', project.slug));
    expect(failed.status).toBe(404);
    expect(failed.message).toContain('staging');
  });
});
