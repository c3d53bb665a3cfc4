import { readFileSync } from 'node:fs';
import { ConfigError } from '../config.ts';

/** A type definition in Sanity's shape; other keys are kept as given. */
export interface SchemaField {
  name: string;
  type: string;
  title?: string;
  [key: string]: unknown;
}

export interface SchemaType {
  name: string;
  type: 'document' | 'object';
  title?: string;
  fields: SchemaField[];
  [key: string]: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads SCHEMA_PATH: a JSON array of types `{name, title?, type: "document" | "object", fields:
 * [{name, title?, type, to?, of?, ...}]}`. Anything else stops the server at start with a message
 * naming the file and the first problem.
 */
export function loadSchema(path: string): SchemaType[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`SCHEMA_PATH ${path} cannot be read as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const fail = (problem: string): never => {
    throw new ConfigError(`SCHEMA_PATH ${path}: ${problem}`);
  };
  if (!Array.isArray(value)) fail('the file must hold a JSON array of type definitions');
  const names = new Set<string>();
  for (const [index, type] of (value as unknown[]).entries()) {
    const at = `types[${index}]`;
    if (!isObject(type)) fail(`${at} must be an object`);
    const definition = type as Record<string, unknown>;
    if (typeof definition.name !== 'string' || definition.name === '') fail(`${at}.name must be a non-empty string`);
    if (names.has(definition.name as string)) fail(`${at}.name "${String(definition.name)}" is defined twice`);
    names.add(definition.name as string);
    if (definition.type !== 'document' && definition.type !== 'object') fail(`${at}.type must be "document" or "object"`);
    if (!Array.isArray(definition.fields)) fail(`${at}.fields must be an array`);
    for (const [fieldIndex, field] of (definition.fields as unknown[]).entries()) {
      const fieldAt = `${at}.fields[${fieldIndex}]`;
      if (!isObject(field)) fail(`${fieldAt} must be an object`);
      const fieldDefinition = field as Record<string, unknown>;
      if (typeof fieldDefinition.name !== 'string' || fieldDefinition.name === '') fail(`${fieldAt}.name must be a non-empty string`);
      if (typeof fieldDefinition.type !== 'string' || fieldDefinition.type === '') fail(`${fieldAt}.type must be a non-empty string`);
    }
  }
  return value as SchemaType[];
}
