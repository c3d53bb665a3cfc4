import type { Config } from '../config.ts';
import { closeServices, createServices } from '../composition.ts';
import type { Role } from '../store/index.ts';
import { promptHidden } from './prompt.ts';

export async function runUserCreate(
  config: Config,
  options: { email: string; name: string; role: Role },
  passwordFromEnv: string | undefined,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  const password = passwordFromEnv ?? (await promptHidden('Password: '));
  const services = await createServices(config);
  try {
    const user = await services.users.createUnchecked({ ...options, password });
    out(`Created ${user.role} ${user.email} (${user.id})`);
  } finally {
    await closeServices(services);
  }
}
