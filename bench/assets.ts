import autocannon from 'autocannon';
import sharp from 'sharp';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from '../test/helpers/test-app.ts';
import { largeJpeg } from '../test/helpers/images.ts';
import { printTable, ratio } from './lib/report.ts';

/**
 * Image transforms: the cold transform of a 2000x1500 JPEG to a 400 px WebP through HTTP, and
 * requests per second for the cached variant, each beside sharp called directly on the same file.
 */
const COLD_RUNS = 9;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

export async function runAssetBenchmark(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-assets-'));
  const file = join(dir, 'photo.jpg');
  writeFileSync(file, await largeJpeg(2000, 1500));
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const token = await app.login();
    await app.request('POST', '/api/v1/projects', { token, body: { name: 'Bench', slug: 'bench' } });
    const form = new FormData();
    form.append('file', new Blob([await import('node:fs/promises').then((fs) => fs.readFile(file))]), 'photo.jpg');
    const uploaded = (await (
      await fetch(`${app.url}/api/v1/assets/production`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-project': 'bench' }, body: form })
    ).json()) as { url: string };
    const url = `${app.url}${uploaded.url}`;
    const headers = { authorization: `Bearer ${token}` };

    // Cold: a different quality each time, so every request transforms.
    const direct: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      direct.push(await timed(() => sharp(file).rotate().resize({ width: 400, withoutEnlargement: true }).webp({ quality: 60 + i }).toBuffer()));
      cold.push(await timed(async () => (await fetch(`${url}?w=400&format=webp&q=${60 + i}`, { headers })).arrayBuffer()));
    }

    // Warm: the same variant, served from the cache.
    await (await fetch(`${url}?w=400&format=webp`, { headers })).arrayBuffer();
    const cached = await autocannon({ url: `${url}?w=400&format=webp`, headers, connections: 16, duration: DURATION_S });
    let sharpOps = 0;
    const until = performance.now() + DURATION_S * 1000;
    const worker = async () => {
      while (performance.now() < until) {
        await sharp(file).rotate().resize({ width: 400 }).webp().toBuffer();
        sharpOps++;
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const sharpPerSecond = sharpOps / DURATION_S;

    printTable(
      'Image transforms: 2000x1500 JPEG -> 400 px WebP',
      ['measure', 'content service', 'sharp directly', 'ratio'],
      [
        ['cold transform, median ms', median(cold).toFixed(1), median(direct).toFixed(1), ratio(median(cold), median(direct))],
        ['cached variant, requests/s', Math.round(cached.requests.average), Math.round(sharpPerSecond), ratio(cached.requests.average, sharpPerSecond)],
      ],
    );
    console.log(`cached variant latency: p50 ${cached.latency.p50} ms, p99 ${cached.latency.p99} ms, errors ${cached.non2xx + cached.errors}`);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runAssetBenchmark();
