import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';

/**
 * Bodies are validated strictly: a number where a string belongs is a 400, not silently coerced,
 * and unknown properties are refused where a schema closes them. Query strings and path params
 * arrive as text, so they are coerced to the declared types.
 */
function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

export function registerValidation(app: FastifyInstance): void {
  const strict = createAjv(false);
  const coercing = createAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
  app.setSchemaErrorFormatter((errors, context) => new Error(describe(errors[0], context)));
}

/** One readable sentence naming the field: "body/email must be string". */
function describe(error: ErrorObject | undefined, context: string): string {
  if (!error) return `${context} is invalid`;
  const where = `${context}${error.instancePath}`;
  if (error.keyword === 'additionalProperties') {
    return `${where} has an unknown property "${String(error.params.additionalProperty)}"`;
  }
  if (error.keyword === 'required') return `${where} must have the property "${String(error.params.missingProperty)}"`;
  if (error.keyword === 'enum') {
    return `${where} must be one of: ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

export type RouteSchema = FastifySchema & { tags?: string[]; summary?: string; description?: string; security?: unknown[] };
