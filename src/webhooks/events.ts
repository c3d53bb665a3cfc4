/** The event names webhooks may subscribe to. */
export const WEBHOOK_EVENTS = [
  'document.create',
  'document.update',
  'document.delete',
  'document.publish',
  'document.unpublish',
  'asset.upload',
  'asset.delete',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What a change of documents emits; emitters name events by these types, so a typo does not compile. */
export type DocumentEvent = Extract<WebhookEvent, `document.${string}`>;
export type AssetEvent = Extract<WebhookEvent, `asset.${string}`>;

export function isWebhookEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}
