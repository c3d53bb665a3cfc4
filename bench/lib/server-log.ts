import { pino } from 'pino';
import { createLogger, type Logger } from '../../src/logging.ts';
import { DEFAULT_LOG_LEVEL } from '../../src/config.ts';

/**
 * A server's log as `npm start` writes it (the default level: a line per request), sent to
 * /dev/null: a bench of requests pays for writing its log lines, as a user's server does.
 */
export function defaultServerLog(): Logger {
  return createLogger(DEFAULT_LOG_LEVEL, pino.destination('/dev/null'));
}
