// Turns a result into plain JSON values: datetimes and paths become strings. Parts that contain
// neither are returned as they are, not copied.
import { DateTime, Path } from './values.ts';

export function toJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof DateTime || value instanceof Path) return value.toJSON();
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const converted = toJson(item);
      if (converted !== item && !copy) copy = value.slice(0, i);
      if (copy) copy.push(converted);
    }
    return copy ?? value;
  }
  const object = value as Record<string, unknown>;
  let copy: Record<string, unknown> | null = null;
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = object[key];
    const converted = toJson(item);
    if (converted !== item && !copy) {
      copy = {};
      for (let j = 0; j < i; j++) Object.defineProperty(copy, keys[j] as string, { value: object[keys[j] as string], enumerable: true, writable: true, configurable: true });
    }
    if (copy) Object.defineProperty(copy, key, { value: converted, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? object;
}
