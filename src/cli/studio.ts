import { join } from 'node:path';
import { CLI_PRINCIPAL } from '../access/system-principal.ts';
import { closeServices, createServices } from '../composition.ts';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { ensureLocalCertificate } from '../http/local-certificate.ts';
import { closeOnSignals } from '../lifecycle/shutdown.ts';
import { startServer } from '../server.ts';
import { prepareStudio, type StudioTarget } from './studio-build.ts';
import { relaunchWithRuntimeSettings, saveCompiledCode } from './server-runtime.ts';

export interface StudioOptions {
  project?: string;
  dataset?: string;
  rebuild: boolean;
}

type Out = (line: string) => void;

const DEFAULT_PROJECT = 'blog';
const DEFAULT_DATASET = 'production';
/** Sanity Studio's rule for project ids; the service takes a project's slug or id in its place. */
const STUDIO_PROJECT_ID = /^[-a-z0-9]+$/;

/**
 * `cms studio`: everything a local Sanity Studio needs, then the server. It picks (or creates) the
 * project, installs and builds studio/ for it, makes a certificate for localhost when no TLS_* is
 * set (browsers speak HTTP/2 only over TLS, and Studio stalls on HTTP/1.1), and serves the API and
 * the studio on one HTTPS origin.
 */
export async function runStudio(options: StudioOptions, env: NodeJS.ProcessEnv = process.env, out: Out = (line) => process.stdout.write(`${line}\n`)): Promise<void> {
  const base = loadConfig(env);
  relaunchWithRuntimeSettings(base);
  const target = await studioTarget(base, options, out);
  const overrides: Record<string, string> = {};
  if (!base.studioDir) overrides.STUDIO_DIR = await prepareStudio(target, { rebuild: options.rebuild, out });
  let generated = false;
  if (!base.tls) {
    const certificate = await ensureLocalCertificate(join(base.dataDir, 'tls'));
    overrides.TLS_CERT_FILE = certificate.certFile;
    overrides.TLS_KEY_FILE = certificate.keyFile;
    generated = true;
    if (certificate.created) out(`Made a self-signed certificate for localhost: ${certificate.certFile} (its key stays in ${join(base.dataDir, 'tls')})`);
  }
  const config = loadConfig({ ...env, ...overrides });
  const server = await startServer(config, out);
  saveCompiledCode();
  closeOnSignals(server, { timeoutMs: config.shutdownTimeoutMs, log: server.services.log });

  const url = new URL(server.url);
  if (['127.0.0.1', '[::1]', '0.0.0.0', '[::]'].includes(url.hostname)) url.hostname = 'localhost';
  out('');
  out(`Open Sanity Studio at ${url.origin}/ (project ${target.projectId}, dataset ${target.dataset}) and sign in with a user of the service.`);
  if (generated) {
    out('The certificate is self-signed, so the browser warns once ("Your connection is not private"):');
    out('that is expected for this local certificate; choose Advanced, then Proceed to localhost.');
    out('For a certificate the browser trusts, set TLS_CERT_FILE and TLS_KEY_FILE, or serve through Caddy or nginx');
    out('(README, "Editing with Sanity Studio").');
  }
}

/** The project the studio edits: the one named, else the only one, else a new "blog". */
async function studioTarget(config: Config, options: StudioOptions, out: Out): Promise<StudioTarget> {
  const services = await createServices(config);
  try {
    const { projects } = services;
    const all = await projects.list(CLI_PRINCIPAL);
    let project = options.project === undefined ? undefined : await projects.findBySlugOrId(options.project);
    if (!project && options.project === undefined && all.length > 1) {
      throw new ConfigError(`Several projects exist: choose one with --project (${all.map((p) => p.slug).join(', ')})`);
    }
    if (!project && options.project === undefined && all.length === 1) project = await projects.findBySlugOrId(all[0]!.id);
    const dataset = options.dataset ?? project?.datasets[0] ?? DEFAULT_DATASET;
    if (!project) {
      const slug = options.project ?? DEFAULT_PROJECT;
      const created = await projects.create(CLI_PRINCIPAL, { name: slug, slug, datasets: [dataset] });
      out(`Created project ${created.slug} with dataset ${dataset}`);
      return { projectId: created.slug, dataset };
    }
    if (!project.datasets.includes(dataset)) {
      await projects.update(CLI_PRINCIPAL, project.slug, { datasets: [...project.datasets, dataset] });
      out(`Added dataset ${dataset} to project ${project.slug}`);
    }
    // Slugs are lower-case letters, digits and dashes, which Studio accepts as a project id.
    const projectId = STUDIO_PROJECT_ID.test(project.slug) ? project.slug : project.id;
    return { projectId, dataset };
  } finally {
    await closeServices(services);
  }
}
