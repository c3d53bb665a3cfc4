import { AppError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/index.ts';
import type { UserService } from './user-service.ts';
import { randomToken } from './secrets.ts';

export interface BootstrappedAdmin {
  email: string;
  /** Set only when the password was generated: shown once, never stored in clear. */
  generatedPassword?: string;
}

export const DEFAULT_ADMIN_EMAIL = 'admin@localhost.localdomain';

/**
 * On the very first start (no user at all) creates the admin from ADMIN_EMAIL / ADMIN_PASSWORD,
 * generating a password when none is configured. Later starts change nothing.
 */
export async function bootstrapAdmin(config: Config, store: Store, users: UserService): Promise<BootstrappedAdmin | null> {
  if ((await store.users.count()) > 0) return null;
  const email = config.adminEmail ?? DEFAULT_ADMIN_EMAIL;
  const generatedPassword = config.adminPassword === undefined ? randomToken(18) : undefined;
  try {
    await users.createUnchecked({ email, name: 'Admin', password: config.adminPassword ?? generatedPassword ?? '', role: 'admin' });
  } catch (error) {
    // Another instance starting at the same moment created it first.
    if (error instanceof AppError && error.code === 'CONFLICT') return null;
    if (error instanceof AppError) throw new Error(`Cannot create the first admin from ADMIN_EMAIL/ADMIN_PASSWORD: ${error.message}`, { cause: error });
    throw error;
  }
  return generatedPassword === undefined ? { email } : { email, generatedPassword };
}
