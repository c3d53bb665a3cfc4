import type { Migration } from './index.ts';

// The finished deliveries of each webhook, newest first, apart from its pending ones: the delivery
// log keeps the newest 50 of them (DeliveryRepository.trim). Trimming read every delivery
// of the webhook, pending ones included, at every batch of outcomes: with 20,000 pending it took
// most of the server's thread, and deliveries went out at about 150 a second.
const sql = () => `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(webhook_id, created_at, outbox_seq) WHERE status <> 'pending';`;

export const deliveryLogIndex: Migration = { version: 15, name: 'delivery-log-index', sql };
