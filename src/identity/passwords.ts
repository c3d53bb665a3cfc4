import bcrypt from 'bcrypt';
import { badRequest } from '../errors.ts';

export const PASSWORD_MIN_LENGTH = 8;
// bcrypt reads at most 72 bytes; a longer password would be silently truncated.
export const PASSWORD_MAX_BYTES = 72;

export function assertAcceptablePassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw badRequest(`password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  }
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    throw badRequest(`password must be at most ${PASSWORD_MAX_BYTES} bytes`);
  }
}

export class PasswordHasher {
  private readonly rounds: number;
  private dummy: Promise<string> | undefined;

  constructor(rounds: number) {
    this.rounds = rounds;
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.rounds);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(password, hash);
  }

  /** Spends the same time as a real check, so a login for an unknown email cannot be told apart. */
  async verifyAgainstNothing(password: string): Promise<false> {
    this.dummy ??= bcrypt.hash('no-such-user-password', this.rounds);
    await bcrypt.compare(password, await this.dummy);
    return false;
  }
}
