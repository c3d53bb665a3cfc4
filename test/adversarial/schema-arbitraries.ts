import fc from 'fast-check';
import { INHERITED_NAMES, hostileJson, hostileNumber, hostileString, type JsonText } from './hostile-arbitraries.ts';

/** The part of JSON Schema the routes' OpenAPI document uses for parameters and bodies. */
export interface RouteSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | readonly string[];
  enum?: readonly unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  items?: RouteSchema;
  properties?: Record<string, RouteSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | RouteSchema;
}

/** Arrays are kept short: the aim is to reach the route's work with odd values, not to load it. */
const MAX_ITEMS = 4;
const MAX_DEPTH = 5;

/**
 * JSON text for a value of `schema`: mostly one the schema allows (so the request reaches the
 * route's own work), now and then a hostile one in its place (past a bound, of another type,
 * with inherited names for keys), as a schema-driven API fuzzer does.
 */
export function jsonForSchema(schema: RouteSchema | undefined, depth = 0): fc.Arbitrary<JsonText> {
  const allowed = allowedJson(schema ?? {}, depth);
  const hostile = depth >= MAX_DEPTH ? fc.constant('null') : hostileJson;
  return fc.oneof({ weight: 12, arbitrary: allowed }, { weight: 1, arbitrary: hostile });
}

function allowedJson(schema: RouteSchema, depth: number): fc.Arbitrary<JsonText> {
  const base = allowedOfType(schema, depth);
  return schema.nullable ? fc.oneof({ weight: 4, arbitrary: base }, { weight: 1, arbitrary: fc.constant('null') }) : base;
}

function allowedOfType(schema: RouteSchema, depth: number): fc.Arbitrary<JsonText> {
  if (schema.enum) return fc.constantFrom(...schema.enum).map((value) => JSON.stringify(value));
  const type = Array.isArray(schema.type) ? schema.type.find((kind) => kind !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return stringForSchema(schema).map((text) => JSON.stringify(text));
    case 'integer':
      return fc.oneof(fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 }).map(String), hostileNumber.map(String));
    case 'number':
      return fc.oneof(fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true }).map((n) => JSON.stringify(n)), hostileNumber.map(String));
    case 'boolean':
      return fc.boolean().map(String);
    case 'array':
      return depth >= MAX_DEPTH
        ? fc.constant('[]')
        : fc
            .array(jsonForSchema(schema.items, depth + 1), { minLength: Math.min(schema.minItems ?? 0, MAX_ITEMS), maxLength: Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS) })
            .map((items) => `[${items.join(',')}]`);
    case 'object':
      return objectForSchema(schema, depth);
    default:
      return depth >= MAX_DEPTH ? fc.constant('null') : hostileJson;
  }
}

/** A string the schema allows: matching its pattern or format, within its lengths; or hostile text within them. */
export function stringForSchema(schema: RouteSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 64, 10_000);
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return fc.oneof(fc.string({ minLength, maxLength: Math.min(maxLength, 32) }), hostileString.filter(fits));
}

function objectForSchema(schema: RouteSchema, depth: number): fc.Arbitrary<JsonText> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const entries = properties.map(([name, property]) => {
    const value = jsonForSchema(property, depth + 1).map((json) => `${JSON.stringify(name)}:${json}`);
    return required.has(name) ? value : fc.option(value, { nil: undefined });
  });
  // Names the schema does not list (inherited ones above all), which a route must refuse or ignore.
  const extra = fc.array(
    fc.tuple(fc.constantFrom(...INHERITED_NAMES, 'extra'), depth >= MAX_DEPTH ? fc.constant('1') : hostileJson).map(([name, json]) => `${JSON.stringify(name)}:${json}`),
    { maxLength: properties.length === 0 ? 3 : 1 },
  );
  return fc
    .tuple(fc.tuple(...entries), fc.oneof({ weight: 5, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: extra }))
    .map(([listed, unlisted]) => `{${[...listed.filter((entry) => entry !== undefined), ...unlisted].join(',')}}`);
}
