import { randomUUID } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import type { ProjectAccessEntry, Role, Store, UserRecord } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireGlobalAdmin, roleInProject } from '../access/access-control.ts';
import { sanityCurrentUser, sanityUser, type SanityCurrentUser, type SanityUser } from './sanity-user.ts';
import { assertAcceptablePassword, type PasswordHasher } from './passwords.ts';
import { isValidEmail, normalizeEmail, toSafeUser, type SafeUser } from './safe-user.ts';
import type { RecentReads } from '../access/recent-reads.ts';

export interface NewUser {
  email: string;
  name: string;
  password: string;
  role?: Role;
}

export interface UserUpdate {
  email?: string;
  name?: string;
  password?: string;
  role?: Role;
  project_access?: ProjectAccessEntry[] | null;
}

export interface UserServiceDeps {
  store: Store;
  passwords: PasswordHasher;
  /** The users kept for requests (AuthService): forgotten after every change of a user. */
  recentUsers: RecentReads<UserRecord>;
  now?: () => Date;
}

export class UserService {
  private readonly deps: UserServiceDeps;
  private readonly now: () => Date;

  constructor(deps: UserServiceDeps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
  }

  async list(actor: Principal): Promise<SafeUser[]> {
    requireGlobalAdmin(actor);
    return (await this.deps.store.users.list()).map(toSafeUser);
  }

  async me(actor: Principal): Promise<SafeUser> {
    if (actor.kind !== 'user') throw forbidden('API tokens have no user profile');
    const user = await this.deps.store.users.findById(actor.id);
    if (!user) throw notFound('User not found');
    return toSafeUser(user);
  }

  /**
   * `/users/me` in Sanity's shape, with the role in the project Studio names (X-Sanity-Project-ID,
   * a slug or an id): none there means no roles, which Studio shows as not authorized. Without a
   * credential the answer is `{}`, as Sanity's: Studio asks again without its token after a 401.
   */
  async sanityMe(actor: Principal | null, projectRef: string | undefined): Promise<SanityCurrentUser | Record<string, never>> {
    if (actor === null) return {};
    if (actor.kind !== 'user') throw forbidden('API tokens have no user profile');
    const user = await this.deps.store.users.findById(actor.id);
    if (!user) throw notFound('User not found');
    if (projectRef === undefined) return sanityCurrentUser(user, user.role);
    const { projects } = this.deps.store;
    const project = (await projects.findBySlug(projectRef)) ?? (await projects.findById(projectRef));
    return sanityCurrentUser(user, project ? roleInProject(actor, project) : null);
  }

  /** Others by id, in Sanity's shape (Studio shows who changed what): names for everyone, emails for admins. */
  async sanityUsers(actor: Principal, ids: readonly string[]): Promise<SanityUser[]> {
    if (actor.kind !== 'user') throw forbidden('API tokens cannot list users');
    const found: SanityUser[] = [];
    for (const id of new Set(ids)) {
      const user = await this.deps.store.users.findById(id);
      if (user) found.push(sanityUser(user, actor.role === 'admin' || user.id === actor.id));
    }
    return found;
  }

  async create(actor: Principal, input: NewUser): Promise<SafeUser> {
    requireGlobalAdmin(actor);
    return this.createUnchecked(input);
  }

  /** Creates a user without an acting principal: the CLI and the first-start admin use it. */
  async createUnchecked(input: NewUser): Promise<SafeUser> {
    const email = this.validEmail(input.email);
    const name = validName(input.name);
    assertAcceptablePassword(input.password);
    if (await this.deps.store.users.findByEmail(email)) throw emailTaken();
    const now = this.now().toISOString();
    const user: UserRecord = {
      id: randomUUID(),
      email,
      name,
      role: input.role ?? 'editor',
      passwordHash: await this.deps.passwords.hash(input.password),
      projectAccess: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.deps.store.users.insert(user);
    } catch (error) {
      // Two concurrent creates of one email: the unique index decides.
      if (await this.deps.store.users.findByEmail(email)) throw emailTaken();
      throw error;
    }
    return toSafeUser(user);
  }

  /**
   * Self or admin. Only admins change `role` and `project_access`; others may change their own
   * name, email and password. A password change ends every session of that user.
   */
  async update(actor: Principal, id: string, changes: UserUpdate): Promise<SafeUser> {
    const isAdmin = actor.kind === 'user' && actor.role === 'admin';
    const isSelf = actor.kind === 'user' && actor.id === id;
    if (!isAdmin && !isSelf) throw forbidden('You may only update your own profile');
    if (!isAdmin && (changes.role !== undefined || changes.project_access !== undefined)) {
      throw forbidden('Only admins may change role or project_access');
    }
    const { store, passwords } = this.deps;
    const user = await store.users.findById(id);
    if (!user) throw notFound('User not found');

    const email = changes.email === undefined ? undefined : this.validEmail(changes.email);
    if (email !== undefined && email !== user.email && (await store.users.findByEmail(email))) {
      throw emailTaken();
    }
    const name = changes.name === undefined ? undefined : validName(changes.name);
    if (changes.password !== undefined) assertAcceptablePassword(changes.password);
    const projectAccess = changes.project_access === undefined ? undefined : await this.validProjectAccess(changes.project_access);
    const demoted = changes.role !== undefined && changes.role !== 'admin' && user.role === 'admin';
    // Hashed before the transaction: bcrypt takes a while, and every writer waits while a transaction runs on SQLite.
    const passwordHash = changes.password === undefined ? undefined : await passwords.hash(changes.password);

    const now = this.now().toISOString();
    try {
      await store.transaction(async (tx) => {
        // Checked on rows held until commit: two admins demoting each other at once must not both succeed.
        if (demoted && !(await tx.users.holdAdmins()).some((admin) => admin !== id)) throw conflict('The last admin cannot be demoted');
        await tx.users.update(id, { email, name, role: changes.role, projectAccess, passwordHash }, now);
        if (changes.password !== undefined) {
          await tx.refreshTokens.revokeAllForUser(id, now);
          await tx.sessions.revokeAllOf(id, now);
        }
      });
    } catch (error) {
      // Two users changed to one email at once: the unique index decides.
      const owner = email === undefined ? undefined : await store.users.findByEmail(email);
      if (owner && owner.id !== id) throw emailTaken();
      throw error;
    }
    this.deps.recentUsers.forget();
    const updated = await store.users.findById(id);
    if (!updated) throw notFound('User not found');
    return toSafeUser(updated);
  }

  private validEmail(email: string): string {
    const normalized = normalizeEmail(email);
    if (!isValidEmail(normalized)) throw badRequest('email must be a valid email address');
    return normalized;
  }

  private async validProjectAccess(entries: ProjectAccessEntry[] | null): Promise<ProjectAccessEntry[] | null> {
    if (entries === null) return null;
    const seen = new Set<string>();
    for (const entry of entries) {
      if (seen.has(entry.projectId)) throw badRequest(`project_access lists project ${entry.projectId} twice`);
      seen.add(entry.projectId);
      if (!(await this.deps.store.projects.findById(entry.projectId))) {
        throw badRequest(`project_access names an unknown projectId: ${entry.projectId}`);
      }
    }
    return entries.map(({ projectId, role }) => ({ projectId, role }));
  }
}

const emailTaken = () => conflict('A user with this email already exists');

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest('name must not be empty');
  return trimmed;
}
