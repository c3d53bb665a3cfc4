import type { Config } from '../config.ts';
import { describeDatabaseUrl, openStore } from '../store/index.ts';

export async function runMigrate(config: Config, out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<void> {
  const store = openStore(config.databaseUrl);
  try {
    const result = await store.migrate();
    out(
      result.applied.length === 0
        ? `${describeDatabaseUrl(config.databaseUrl)}: up to date (schema version ${result.current})`
        : `${describeDatabaseUrl(config.databaseUrl)}: applied ${result.applied.join(', ')} (schema version ${result.current})`,
    );
  } finally {
    await store.close();
  }
}
