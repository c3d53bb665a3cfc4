import autocannon from 'autocannon';
import { startTestApp, type TestApp } from '../test/helpers/test-app.ts';
import { startChildReceiver } from './lib/child-receiver.ts';
import { printTable, ratio } from './lib/report.ts';

/**
 * Webhooks: deliveries per second to a local receiver (in a process of its own), and what
 * registered webhooks cost a mutation (the bar: with 20 webhooks a mutation stays within 10% of
 * none).
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const EVENTS = 2000;
/** Mutations per second while measuring their latency: 20 webhooks then make 1,000 deliveries/s. */
const MUTATION_RATE = Number(process.env.BENCH_MUTATION_RATE ?? 50);
const BODY = JSON.stringify({ mutations: [{ create: { _type: 'benchPost', title: 'A benchmark post' } }] });

async function mutationLoad(app: TestApp, token: string, slug: string, duration = DURATION_S) {
  const result = await autocannon({
    url: `${app.url}/api/v1/data/mutate/production`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-project': slug },
    body: BODY,
    connections: 2,
    overallRate: MUTATION_RATE,
    duration,
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.mean };
}

export async function runWebhookBenchmark(): Promise<void> {
  const receiver = await startChildReceiver();
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { workers: true });
  try {
    const token = await app.login();
    const hook = (slug: string, name: string) =>
      app.request('POST', `/api/v1/webhooks/${slug}`, {
        token,
        body: { name, url: receiver.url, events: ['document.create'], dataset: 'production' },
      });

    // Deliveries per second: 2,000 events queued at once, one webhook.
    await app.request('POST', '/api/v1/projects', { token, body: { name: 'Deliveries', slug: 'deliveries' } });
    await hook('deliveries', 'throughput');
    const mutations = Array.from({ length: 100 }, () => ({ create: { _type: 'event' } }));
    const started = performance.now();
    for (let i = 0; i < EVENTS / 100; i++) {
      await app.request('POST', '/api/v1/data/mutate/production', { token, headers: { 'x-project': 'deliveries' }, body: { mutations } });
    }
    await receiver.waitFor(EVENTS, 120_000);
    const deliveriesPerSecond = EVENTS / ((performance.now() - started) / 1000);

    // Mutation cost: none registered, then 20 webhooks on the same dataset.
    await app.request('POST', '/api/v1/projects', { token, body: { name: 'None', slug: 'none' } });
    await mutationLoad(app, token, 'none', 2); // warm-up, not measured
    const none = await mutationLoad(app, token, 'none');
    await app.request('POST', '/api/v1/projects', { token, body: { name: 'Twenty', slug: 'twenty' } });
    for (let i = 0; i < 20; i++) await hook('twenty', `hook-${i}`);
    const twenty = await mutationLoad(app, token, 'twenty');
    // Once more without webhooks, after the deliveries drained: noise shows as the gap between the two.
    await receiver.waitFor(EVENTS + Math.round(twenty.rps * DURATION_S * 20) - 100);
    const noneAgain = await mutationLoad(app, token, 'none');

    const baseline = (none.mean + noneAgain.mean) / 2;
    printTable('Webhook deliveries to a local receiver', ['measure', 'value'], [['deliveries/s (2,000 events, 1 webhook)', Math.round(deliveriesPerSecond)]]);
    printTable(
      `Mutation latency at ${MUTATION_RATE} mutations/s, each delivered to every webhook`,
      ['webhooks registered', 'tx/s', 'mean ms', 'p50 ms', 'p99 ms', 'mean vs none'],
      [
        ['none', Math.round(none.rps), none.mean.toFixed(2), none.p50, none.p99, '1.00x'],
        ['20', Math.round(twenty.rps), twenty.mean.toFixed(2), twenty.p50, twenty.p99, ratio(twenty.mean, baseline)],
        ['none, again', Math.round(noneAgain.rps), noneAgain.mean.toFixed(2), noneAgain.p50, noneAgain.p99, ratio(noneAgain.mean, baseline)],
      ],
    );
    const added = (twenty.mean / baseline - 1) * 100;
    console.log(`Added mean mutation latency with 20 webhooks: ${added.toFixed(1)}% of the mean of both runs without (target: within 10%)`);
  } finally {
    await app.close();
    await receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runWebhookBenchmark();
