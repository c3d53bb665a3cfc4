import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Services } from './services.ts';
import { closeServices, createServices, startWorkers } from './composition.ts';
import { buildApp } from './http/app.ts';
import { bootstrapAdmin } from './identity/bootstrap-admin.ts';
import { describeDatabaseUrl } from './store/index.ts';
import { API_PREFIX } from './http/openapi.ts';
import { importSpoolDirectory, removeStaleSpools } from './import-export/import-spool.ts';
import { readTlsCredentials } from './http/tls.ts';
import { assertStudioBuild } from './routes/studio.ts';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

/** Builds everything from the configuration, creates the first admin if needed, and listens. */
export async function startServer(config: Config, out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<RunningServer> {
  // A certificate or a studio that cannot be used stops the start before anything is opened.
  const tls = config.tls ? readTlsCredentials(config.tls) : undefined;
  if (config.studioDir) assertStudioBuild(config.studioDir);
  const services = await createServices(config);
  await removeStaleSpools(importSpoolDirectory(config.dataDir));
  const admin = await bootstrapAdmin(config, services.store, services.users);
  const app = await buildApp(services, { version: packageVersion(), ...(tls ? { tls } : {}) });
  const address = await app.listen({ port: config.port, host: config.host });
  startWorkers(services);
  const url = `${address}${API_PREFIX}`;

  out(`Content service listening on ${url} (database: ${describeDatabaseUrl(config.databaseUrl)})`);
  out(`API docs: ${url}/docs`);
  if (config.studioDir) out(`Sanity Studio: ${address}/ (from ${config.studioDir})`);
  if (admin?.generatedPassword) {
    out(`First start: created admin ${admin.email} with the password below. It is shown only this once.`);
    out(`  ${admin.generatedPassword}`);
  } else if (admin) {
    out(`First start: created admin ${admin.email} from ADMIN_EMAIL/ADMIN_PASSWORD.`);
  }

  let closing: Promise<void> | undefined;
  return {
    app,
    services,
    url,
    close: () =>
      (closing ??= (async () => {
        // Readiness answers 503 first; requests are still served during the delay, so a load
        // balancer has time to take the instance out before it stops accepting connections.
        services.readiness.drain();
        if (config.shutdownDelayMs > 0) await sleep(config.shutdownDelayMs);
        // Stops accepting, tells listeners to reconnect elsewhere, finishes in-flight requests.
        await app.close();
        // Stops the workers: the webhook worker finishes and records the attempts it has under way.
        await closeServices(services);
      })()),
  };
}
