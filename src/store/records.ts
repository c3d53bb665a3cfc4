/** Rows as the store hands them out: plain data, timestamps as ISO 8601 strings. */
export type Role = 'admin' | 'editor' | 'viewer';

export interface ProjectAccessEntry {
  projectId: string;
  role: Role;
}

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  projectAccess: ProjectAccessEntry[] | null;
  createdAt: string;
  updatedAt: string;
}

export interface Locales {
  default: string;
  languages: { id: string; title: string }[];
}

export interface ProjectRecord {
  id: string;
  name: string;
  slug: string;
  datasets: string[];
  locales: Locales | null;
  createdAt: string;
  updatedAt: string;
}

export interface RefreshTokenRecord {
  id: string;
  userId: string;
  familyId: string;
  tokenHash: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

/** A sign-in session of the login page; only the hash of its token is stored. */
export interface SessionRecord {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** An origin a project lets browsers call the API from; with credentials (cookies) or without. */
export interface CorsOriginRecord {
  id: string;
  projectId: string;
  origin: string;
  allowCredentials: boolean;
  createdAt: string;
}

export type TokenPermission = 'read' | 'write';

export interface ApiTokenRecord {
  id: string;
  projectId: string;
  name: string;
  permissions: TokenPermission[];
  dataset: string | null;
  tokenHash: string;
  createdBy: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

/** A JSON object as stored: documents and their revisions. */
export type JsonObject = { [key: string]: unknown };

/** A stored document: its content always carries the system fields. */
export interface StoredDocument extends JsonObject {
  _id: string;
  _type: string;
  _rev: string;
  _createdAt: string;
  _updatedAt: string;
}

export interface RevisionRecord {
  id: string;
  projectId: string;
  dataset: string;
  /** The base id: drafts and published forms share one history. */
  documentId: string;
  revision: number;
  isDraft: boolean;
  transactionId: string;
  content: StoredDocument;
  changedBy: string | null;
  createdAt: string;
}

export interface OutboxEventRecord {
  projectId: string;
  dataset: string;
  event: string;
  documentId: string;
  documentType: string | null;
  transactionId: string;
  payload: JsonObject;
  createdAt: string;
}

export interface StoredOutboxEvent extends OutboxEventRecord {
  /** Where the event stands in commit order (see store/commit-order.ts). */
  position: { order: string; seq: number };
}

export interface ScheduleRecord {
  projectId: string;
  dataset: string;
  /** The base id of the document whose draft is to be published. */
  documentId: string;
  scheduledAt: string;
  createdBy: string | null;
  createdAt: string;
}

export type AssetType = 'image' | 'file';

export interface AssetRecord {
  id: string;
  projectId: string;
  dataset: string;
  type: AssetType;
  /** The uploaded file's name, as sent (sanitized), if any. */
  filename: string | null;
  mimeType: string;
  extension: string;
  size: number;
  sha1: string;
  /** The blob store key: `<project_id>/<dataset>/<asset_id>.<extension>`. */
  path: string;
  metadata: JsonObject;
  createdBy: string | null;
  createdAt: string;
}

export interface WebhookRecord {
  id: string;
  projectId: string;
  name: string;
  url: string;
  events: string[];
  dataset: string;
  active: boolean;
  /** The signing secret, kept as is: deliveries need it to compute their HMAC. */
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRecord {
  /** The delivery id: one per (webhook, event), kept across retries. */
  id: string;
  webhookId: string;
  outboxSeq: number;
  event: string;
  payload: JsonObject;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}
