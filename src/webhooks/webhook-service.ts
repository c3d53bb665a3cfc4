import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound, type AppError } from '../errors.ts';
import type { DeliveryRecord, ProjectRecord, Store, WebhookRecord } from '../store/index.ts';
import type { Principal } from '../access/principal.ts';
import { requireSession } from '../access/access-control.ts';
import type { ProjectService } from '../projects/project-service.ts';
import { WEBHOOK_EVENTS, isWebhookEvent } from './events.ts';
import { assertAcceptableWebhookUrl, systemResolver, type HostResolver } from './url-policy.ts';

export const MAX_WEBHOOKS_PER_PROJECT = 20;
export const WEBHOOK_NAME_MAX = 80;
export const DELIVERY_LOG_SIZE = 50;
export const DELIVERY_LIST_DEFAULT = 50;
export const DELIVERY_LIST_MAX = 100;

export interface WebhookInput {
  name?: string;
  url?: string;
  events?: string[];
  dataset?: string;
  active?: boolean;
  secret?: string;
}

export interface WebhookView {
  id: string;
  name: string;
  url: string;
  events: string[];
  dataset: string;
  active: boolean;
  created_at: string;
  updated_at: string;
  /** Only in the create response and on rotation. */
  secret?: string;
}

export interface DeliveryView {
  id: string;
  event: string;
  payload: Record<string, unknown>;
  status_code: number | null;
  response_body: string | null;
  attempts: number;
  success: boolean;
  status: string;
  error: string | null;
  created_at: string;
}

function toView(webhook: WebhookRecord, withSecret = false): WebhookView {
  return {
    id: webhook.id,
    name: webhook.name,
    url: webhook.url,
    events: webhook.events,
    dataset: webhook.dataset,
    active: webhook.active,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
    ...(withSecret ? { secret: webhook.secret } : {}),
  };
}

function toDeliveryView(delivery: DeliveryRecord): DeliveryView {
  return {
    id: delivery.id,
    event: delivery.event,
    payload: delivery.payload,
    status_code: delivery.statusCode,
    response_body: delivery.responseBody,
    attempts: delivery.attempts,
    success: delivery.status === 'succeeded',
    status: delivery.status,
    error: delivery.error,
    created_at: delivery.createdAt,
  };
}

/** 32 random bytes as hex. */
export function generateSecret(): string {
  return randomBytes(32).toString('hex');
}

export interface WebhookServiceOptions {
  allowPrivateUrls: boolean;
  resolve?: HostResolver;
  now?: () => Date;
}

/** Webhook management: project admins with an interactive session only (never API tokens). */
export class WebhookService {
  private readonly store: Store;
  private readonly projects: ProjectService;
  private readonly options: WebhookServiceOptions;
  private readonly now: () => Date;

  constructor(store: Store, projects: ProjectService, options: WebhookServiceOptions) {
    this.store = store;
    this.projects = projects;
    this.options = options;
    this.now = options.now ?? (() => new Date());
  }

  events(actor: Principal): readonly string[] {
    requireSession(actor);
    return WEBHOOK_EVENTS;
  }

  async list(actor: Principal, projectRef: string): Promise<WebhookView[]> {
    const project = await this.managed(actor, projectRef);
    return (await this.store.webhooks.listByProject(project.id)).map((webhook) => toView(webhook));
  }

  async create(actor: Principal, projectRef: string, input: Required<Pick<WebhookInput, 'name' | 'url' | 'events' | 'dataset'>> & WebhookInput) {
    // A webhook for an unknown project is a conflict (409), not a 404; so is one for a
    // project the actor cannot see, which must not be told apart.
    const project = await this.managed(actor, projectRef, () => conflict(`Project "${projectRef}" not found`));
    const now = this.now().toISOString();
    const webhook: WebhookRecord = {
      id: randomUUID(),
      projectId: project.id,
      name: validName(input.name),
      url: await this.validUrl(input.url),
      events: validEvents(input.events),
      dataset: validDataset(project, input.dataset),
      active: input.active ?? true,
      secret: input.secret ?? generateSecret(),
      createdAt: now,
      updatedAt: now,
    };
    await this.store.transaction(async (tx) => {
      if ((await tx.webhooks.countByProject(project.id)) >= MAX_WEBHOOKS_PER_PROJECT) {
        throw conflict(`A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks`);
      }
      await tx.webhooks.insert(webhook);
    });
    return toView(webhook, true);
  }

  async update(actor: Principal, projectRef: string, id: string, input: WebhookInput, rotateSecret: boolean): Promise<WebhookView> {
    const project = await this.managed(actor, projectRef);
    const existing = await this.store.webhooks.find(project.id, id);
    if (!existing) throw notFound(`Webhook "${id}" not found`);
    const secret = rotateSecret ? generateSecret() : input.secret;
    const now = this.now().toISOString();
    await this.store.transaction(async (tx) => {
      await tx.webhooks.update(
        id,
        {
          name: input.name === undefined ? undefined : validName(input.name),
          url: input.url === undefined ? undefined : await this.validUrl(input.url),
          events: input.events === undefined ? undefined : validEvents(input.events),
          dataset: input.dataset === undefined ? undefined : validDataset(project, input.dataset),
          active: input.active,
          secret,
        },
        now,
      );
      if (input.active === false) await tx.deliveries.cancelPending(id, now);
    });
    const updated = await this.store.webhooks.find(project.id, id);
    if (!updated) throw notFound(`Webhook "${id}" not found`);
    return toView(updated, rotateSecret);
  }

  async delete(actor: Principal, projectRef: string, id: string): Promise<{ deleted: true; id: string }> {
    const project = await this.managed(actor, projectRef);
    if (!(await this.store.webhooks.delete(project.id, id))) throw notFound(`Webhook "${id}" not found`);
    return { deleted: true, id };
  }

  async deliveries(actor: Principal, projectRef: string, id: string, limit: number): Promise<DeliveryView[]> {
    const project = await this.managed(actor, projectRef);
    if (!(await this.store.webhooks.find(project.id, id))) throw notFound(`Webhook "${id}" not found`);
    return (await this.store.deliveries.recent(id, limit)).map(toDeliveryView);
  }

  /** A project the actor cannot see is `missing` like an unknown one; one it sees without admin is 403. */
  private async managed(actor: Principal, projectRef: string, missing?: () => AppError) {
    return this.projects.administered(actor, projectRef, missing);
  }

  private async validUrl(url: string): Promise<string> {
    await assertAcceptableWebhookUrl(url, this.options.allowPrivateUrls, this.options.resolve ?? systemResolver);
    return url;
  }
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > WEBHOOK_NAME_MAX) throw badRequest(`name must be 1 to ${WEBHOOK_NAME_MAX} characters`);
  return trimmed;
}

function validEvents(events: string[]): string[] {
  if (events.length === 0) throw badRequest('events must name at least one event');
  const unknown = events.filter((event) => !isWebhookEvent(event));
  if (unknown.length > 0) throw badRequest(`unknown events: ${unknown.join(', ')}; use ${WEBHOOK_EVENTS.join(', ')}`);
  return [...new Set(events)];
}

function validDataset(project: ProjectRecord, dataset: string): string {
  if (!project.datasets.includes(dataset)) throw badRequest(`dataset "${dataset}" is not a dataset of project "${project.slug}"`);
  return dataset;
}
