/** JSON schemas shared by routes: they validate, shape responses (nothing else leaks) and feed OpenAPI. */

export const errorSchema = {
  type: 'object',
  description: 'The standard error body',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['statusCode', 'error', 'message'],
} as const;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request body or parameters',
  401: 'Missing or invalid authentication',
  403: 'Insufficient permissions',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  429: 'Rate limit exceeded (see Retry-After)',
  503: 'The server is busy with large requests (see Retry-After)',
};

/** Response schemas for the given error statuses (429 is added everywhere). */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  for (const status of [...statuses, 429]) {
    responses[status] = { ...errorSchema, description: ERROR_DESCRIPTIONS[status] ?? 'Error' };
  }
  return responses;
}

export const roleSchema = { type: 'string', enum: ['admin', 'editor', 'viewer'] } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

export const projectAccessSchema = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    properties: { projectId: { type: 'string', minLength: 1 }, role: roleSchema },
    required: ['projectId', 'role'],
    additionalProperties: false,
  },
} as const;

export const safeUserSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: roleSchema,
    project_access: projectAccessSchema,
    created_at: timestamp,
    updated_at: timestamp,
  },
  required: ['id', 'email', 'name', 'role', 'project_access', 'created_at', 'updated_at'],
} as const;

export const sessionSchema = {
  type: 'object',
  properties: {
    accessToken: { type: 'string' },
    refreshToken: { type: 'string' },
    user: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        email: { type: 'string' },
        name: { type: 'string' },
        role: roleSchema,
        created_at: timestamp,
        updated_at: timestamp,
      },
      required: ['id', 'email', 'name', 'role', 'created_at', 'updated_at'],
    },
  },
  required: ['accessToken', 'refreshToken', 'user'],
} as const;

export const localesSchema = {
  type: ['object', 'null'],
  properties: {
    default: { type: 'string', minLength: 1 },
    languages: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1 }, title: { type: 'string' } },
        required: ['id', 'title'],
        additionalProperties: false,
      },
    },
  },
  required: ['default', 'languages'],
  additionalProperties: false,
} as const;

export const projectSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    slug: { type: 'string' },
    datasets: { type: 'array', items: { type: 'string' } },
    locales: localesSchema,
    created_at: timestamp,
    updated_at: timestamp,
  },
  required: ['id', 'name', 'slug', 'datasets', 'created_at', 'updated_at'],
} as const;

export const deletedSchema = {
  type: 'object',
  properties: { deleted: { type: 'boolean', const: true }, id: { type: 'string' } },
  required: ['deleted', 'id'],
} as const;

export const bearerSecurity = [{ bearerAuth: [] }];

/** `limit` and `offset` query parameters of a paged list. */
export function paginationQuery(defaultLimit: number, maxLimit: number) {
  return {
    limit: { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit },
    // Databases take offsets as 64-bit integers: a larger one is a 400, not a failed statement.
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
  } as const;
}
