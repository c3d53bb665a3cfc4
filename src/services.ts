import type { Config } from './config.ts';
import type { Store } from './store/index.ts';
import type { AuthService } from './identity/auth-service.ts';
import type { UserService } from './identity/user-service.ts';
import type { ApiTokenService } from './identity/api-token-service.ts';
import type { ProjectService } from './projects/project-service.ts';
import type { RateLimiter } from './http/rate-limit/rate-limiter.ts';

/** Everything the HTTP layer and the CLI call into, built once by the composition root. */
export interface Services {
  readonly config: Config;
  readonly store: Store;
  readonly auth: AuthService;
  readonly users: UserService;
  readonly projects: ProjectService;
  readonly apiTokens: ApiTokenService;
  readonly rateLimiter: RateLimiter;
}
