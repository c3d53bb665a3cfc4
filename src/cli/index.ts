import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { packageVersion, startServer } from '../server.ts';
import { runMigrate } from './migrate.ts';
import { runUserCreate } from './user-create.ts';

const program = new Command('cms').description('Content service: server and administration').version(packageVersion());

program
  .command('serve')
  .description('Start the HTTP API (configuration from environment variables; see README)')
  .action(async () => {
    const server = await startServer(loadConfig());
    const stop = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('migrate')
  .description('Apply pending database migrations and exit')
  .action(async () => runMigrate(loadConfig()));

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
