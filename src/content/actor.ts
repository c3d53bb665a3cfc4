import type { Principal } from '../access/principal.ts';

/** The `changed_by` of a revision: a user's id, or `token:<id>` for an API token. */
export function actorIdOf(principal: Principal): string {
  return principal.kind === 'user' ? principal.id : `token:${principal.id}`;
}
