import { tokenPrincipal, userPrincipal, type Principal } from '../access/principal.ts';
import type { Repositories } from '../store/index.ts';

const TOKEN_PREFIX = 'token:';

/** The `changed_by` of a revision: a user's id, or `token:<id>` for an API token. */
export function actorIdOf(principal: Principal): string {
  return principal.kind === 'user' ? principal.id : `${TOKEN_PREFIX}${principal.id}`;
}

/** Who an actor id names, with their rights as they are now: undefined once the user or token is gone. */
export async function principalOfActor(store: Pick<Repositories, 'users' | 'apiTokens'>, actorId: string): Promise<Principal | undefined> {
  if (actorId.startsWith(TOKEN_PREFIX)) {
    const token = await store.apiTokens.findById(actorId.slice(TOKEN_PREFIX.length));
    return token && tokenPrincipal(token);
  }
  const user = await store.users.findById(actorId);
  return user && userPrincipal(user);
}
