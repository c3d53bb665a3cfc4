import { describe, expect, it } from 'vitest';
import { atLeast, requireProjectRole, roleInProject } from '../../src/access/access-control.ts';
import type { Principal } from '../../src/access/principal.ts';
import { AppError } from '../../src/errors.ts';

const project = { id: 'p1' };
const other = { id: 'p2' };
type Access = { projectId: string; role: 'admin' | 'editor' | 'viewer' }[] | null;
const user = (role: 'admin' | 'editor' | 'viewer', projectAccess: Access = null): Principal => ({
  kind: 'user',
  id: 'u',
  email: 'u@example.com',
  role,
  projectAccess,
});
const token = (permissions: ('read' | 'write')[], dataset: string | null = null): Principal => ({
  kind: 'token',
  id: 't',
  projectId: 'p1',
  dataset,
  permissions,
});

function status(fn: () => void): number | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return error.statusCode;
    throw error;
  }
}

describe('access control', () => {
  it('orders roles viewer < editor < admin', () => {
    expect(atLeast('admin', 'editor')).toBe(true);
    expect(atLeast('editor', 'editor')).toBe(true);
    expect(atLeast('viewer', 'editor')).toBe(false);
    expect(atLeast(null, 'viewer')).toBe(false);
  });

  it('gives admins admin everywhere, whatever their project_access says', () => {
    expect(roleInProject(user('admin', [{ projectId: 'p1', role: 'viewer' }]), project)).toBe('admin');
    expect(roleInProject(user('admin', []), other)).toBe('admin');
  });

  it('applies the global role without project_access, and only listed projects with it', () => {
    expect(roleInProject(user('editor'), project)).toBe('editor');
    const restricted = user('viewer', [{ projectId: 'p1', role: 'admin' }]);
    expect(roleInProject(restricted, project)).toBe('admin');
    expect(roleInProject(restricted, other)).toBeNull();
  });

  it('lets tokens act as viewer (read) or editor (write) in their own project only', () => {
    expect(roleInProject(token(['read']), project)).toBe('viewer');
    expect(roleInProject(token(['read', 'write']), project)).toBe('editor');
    expect(roleInProject(token(['write']), other)).toBeNull();
  });

  it('enforces minimum roles, dataset scope and session-only operations with 403', () => {
    expect(status(() => requireProjectRole(user('viewer'), project, 'viewer'))).toBe('ok');
    expect(status(() => requireProjectRole(user('viewer'), project, 'editor'))).toBe(403);
    expect(status(() => requireProjectRole(token(['write']), project, 'editor', { dataset: 'production' }))).toBe('ok');
    expect(status(() => requireProjectRole(token(['read']), project, 'editor'))).toBe(403);
    expect(status(() => requireProjectRole(token(['read'], 'staging'), project, 'viewer', { dataset: 'production' }))).toBe(403);
    expect(status(() => requireProjectRole(token(['read'], 'staging'), project, 'viewer', { dataset: 'staging' }))).toBe('ok');
    expect(status(() => requireProjectRole(token(['read', 'write']), other, 'viewer'))).toBe(403);
    expect(status(() => requireProjectRole(token(['read', 'write']), project, 'viewer', { sessionOnly: true }))).toBe(403);
    expect(status(() => requireProjectRole(user('editor'), project, 'admin', { sessionOnly: true }))).toBe(403);
    expect(status(() => requireProjectRole(user('editor', [{ projectId: 'p1', role: 'admin' }]), project, 'admin', { sessionOnly: true }))).toBe('ok');
  });
});
