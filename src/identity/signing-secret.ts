import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the generated secret is kept, inside DATA_DIR. */
export const SIGNING_SECRET_FILE = 'jwt-secret';
const MIN_LENGTH = 32;

export interface SigningSecret {
  secret: string;
  file: string;
  /** True when this call generated it (the first start). */
  created: boolean;
}

/**
 * The JWT signing secret when JWT_SECRET is not set: random, generated on the first start and kept
 * in DATA_DIR (readable by its owner only), so sessions survive restarts and nobody can sign a
 * token with a value written in the repository. Two processes starting together on one DATA_DIR
 * agree: the file is created exclusively, and the loser reads the winner's.
 */
export function signingSecretIn(dataDir: string): SigningSecret {
  const file = join(dataDir, SIGNING_SECRET_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(48).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    return { secret: read(file), file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { secret: read(file), file, created: false };
  }
}

function read(file: string): string {
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_LENGTH) throw new Error(`${file} holds a JWT secret shorter than ${MIN_LENGTH} characters: delete it to generate a new one, or set JWT_SECRET`);
  return secret;
}
