import cliProgress from 'cli-progress';

export interface Progress {
  update(value: number): void;
  stop(): void;
}

/**
 * A progress bar on standard error, so standard output stays clean for data (`cms export > file`).
 * Without a terminal (scripts, CI) it draws nothing.
 */
export function progressBar(label: string, total: number, unit: string): Progress {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta_formatted} left`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { update: (value) => bar.update(Math.min(value, total)), stop: () => bar.stop() };
}
