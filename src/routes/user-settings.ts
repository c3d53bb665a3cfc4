import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services.ts';
import { principalOf } from '../http/request-context.ts';
import { bearerSecurity, errorResponses } from '../http/schemas.ts';
import type { SettingEntry } from '../identity/user-settings-service.ts';

const entrySchema = { type: 'object', properties: { key: { type: 'string' }, value: {} }, required: ['key', 'value'] } as const;
const entriesSchema = { type: 'array', items: entrySchema, maxItems: 100 } as const;

/** Sanity's `/users/me/keyvalue`: the signed-in user's UI settings, which Studio keeps there. */
export const userSettingsRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { keys: string } }>(
    '/users/me/keyvalue/:keys',
    {
      schema: {
        tags: ['users'],
        summary: 'Settings of the signed-in user by key (comma-separated); a key never set has the value null',
        security: bearerSecurity,
        params: { type: 'object', properties: { keys: { type: 'string', minLength: 1, maxLength: 4096 } }, required: ['keys'] },
        response: { 200: entriesSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => services.userSettings.get(principalOf(request), request.params.keys.split(',')),
  );

  app.put<{ Body: SettingEntry[] }>(
    '/users/me/keyvalue',
    {
      schema: {
        tags: ['users'],
        summary: 'Sets settings of the signed-in user ([{key, value}]; a null value removes one); answers with them',
        security: bearerSecurity,
        body: { ...entriesSchema, items: { ...entrySchema, additionalProperties: false } },
        response: { 200: entriesSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => services.userSettings.put(principalOf(request), request.body),
  );
};
