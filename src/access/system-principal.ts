import type { UserPrincipal } from './principal.ts';

/**
 * The principal of the command line: it runs on the server's own machine with the server's own
 * configuration, so it acts as an admin. Revisions it writes record `changed_by` "cli".
 */
export const CLI_PRINCIPAL: UserPrincipal = Object.freeze({
  kind: 'user',
  id: 'cli',
  email: 'cli@localhost',
  role: 'admin',
  projectAccess: null,
});
