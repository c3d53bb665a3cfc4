import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Starts bench/lib/receiver-process.ts in its own process. */
export async function startChildReceiver() {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./receiver-process.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('error', reject);
  });
  return {
    url: `${base}/hook`,
    count: async () => Number(await (await fetch(`${base}/count`)).text()),
    async waitFor(count: number, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while ((await this.count()) < count) {
        if (Date.now() > deadline) throw new Error(`receiver got fewer than ${count} deliveries`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}
