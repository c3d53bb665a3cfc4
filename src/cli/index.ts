import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { packageVersion, startServer } from '../server.ts';
import { runMigrate } from './migrate.ts';
import { runUserCreate } from './user-create.ts';
import { runImport } from './import.ts';
import { runExport } from './export.ts';
import { runStudio } from './studio.ts';
import { closeOnSignals } from '../lifecycle/shutdown.ts';
import { relaunchWithRuntimeSettings, saveCompiledCode } from './server-runtime.ts';

const program = new Command('cms').description('Content service: server and administration').version(packageVersion());

program
  .command('serve')
  .description('Start the HTTP API (configuration from environment variables; see README)')
  .action(async () => {
    const config = loadConfig();
    relaunchWithRuntimeSettings(config);
    const server = await startServer(config);
    saveCompiledCode();
    closeOnSignals(server, { timeoutMs: config.shutdownTimeoutMs, log: server.services.log });
  });

program
  .command('studio')
  .description('Serve the API and Sanity Studio (studio/) over HTTPS and HTTP/2: installs and builds the studio, makes a localhost certificate unless TLS_* is set')
  .option('--project <project>', 'project slug or id (default: the only project, or a new "blog")')
  .option('--dataset <dataset>', "dataset to edit (default: the project's first)")
  .option('--rebuild', 'build the studio again even if nothing changed', false)
  .action(async (options: { project?: string; dataset?: string; rebuild: boolean }) => runStudio(options));

program
  .command('migrate')
  .description('Apply pending database migrations and exit')
  .action(async () => runMigrate(loadConfig()));

program
  .command('import')
  .description('Import an NDJSON file or a `sanity dataset export` .tar.gz archive (uploading its assets) into a dataset')
  .argument('<file>', 'a .ndjson file or a .tar.gz archive')
  .requiredOption('--dataset <dataset>', 'the dataset to import into')
  .option('--project <project>', 'project slug or id (needed when several projects have the dataset)')
  .option('--replace', 'overwrite documents that already exist', false)
  .action(async (file: string, options: { dataset: string; project?: string; replace: boolean }) => runImport(loadConfig(), file, options));

program
  .command('export')
  .description('Export a dataset as NDJSON on standard output, or with --out FILE.tar.gz as a Sanity-style archive with its assets')
  .requiredOption('--dataset <dataset>', 'the dataset to export')
  .option('--project <project>', 'project slug or id (needed when several projects have the dataset)')
  .option('--types <types>', 'comma-separated document types')
  .option('--no-drafts', 'leave drafts out')
  .option('--out <file>', 'write to this file (.ndjson, or .tar.gz for an archive) instead of standard output')
  .action(async (options: { dataset: string; project?: string; types?: string; drafts: boolean; out?: string }) =>
    runExport(loadConfig(), { ...options, types: options.types?.split(',').map((type) => type.trim()).filter(Boolean) }),
  );

const user = program.command('user').description('Manage users');
user
  .command('create')
  .description('Create a user. The password is read from CMS_USER_PASSWORD or asked for; never passed as an argument.')
  .requiredOption('--email <email>', 'email address (unique)')
  .requiredOption('--name <name>', 'display name')
  .addOption(new Option('--role <role>', 'global role').choices(['admin', 'editor', 'viewer']).default('editor'))
  .action(async (options: { email: string; name: string; role: 'admin' | 'editor' | 'viewer' }) =>
    runUserCreate(loadConfig(), options, process.env.CMS_USER_PASSWORD),
  );

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`cms: ${message}\n`);
  process.exitCode = 1;
}
