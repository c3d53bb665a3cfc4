// GROQ values are plain JavaScript values (null, booleans, finite numbers, strings, arrays and
// objects as JSON.parse makes them), plus two classes for the types JSON lacks: DateTime and
// Path. They serialize to strings through toJSON. No value is wrapped, so documents flow through
// the evaluator without copying.

/** A point in time with millisecond precision, as dateTime() makes it. */
export class DateTime {
  readonly ms: number;

  constructor(ms: number) {
    this.ms = ms;
  }

  /** RFC 3339 with a time zone, as GROQ requires; anything else is not a datetime. */
  static parse(text: string): DateTime | null {
    if (!RFC3339.test(text)) return null;
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? null : new DateTime(ms);
  }

  toString(): string {
    const iso = new Date(this.ms).toISOString();
    // toISOString always writes milliseconds; GROQ writes them only when there are some.
    return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
  }

  toJSON(): string {
    return this.toString();
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[-+]\d{2}:\d{2})$/;

/** A path pattern (`a.*.b`, `a.**`) as path() makes it; `in` matches strings against it. */
export class Path {
  readonly pattern: string;
  private readonly regex: RegExp;

  constructor(pattern: string) {
    this.pattern = pattern;
    // `*` is one dot-separated segment, `**` any number of them; everything else is literal.
    const parts = pattern.split('.').map((part) => (part === '*' ? '[^.]+' : part === '**' ? '.*' : escapeRegExp(part)));
    this.regex = new RegExp(`^${parts.join('\\.')}$`);
  }

  matches(text: string): boolean {
    return this.regex.test(text);
  }

  toJSON(): string {
    return this.pattern;
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A GROQ object: not null, not an array, not a DateTime or Path. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof DateTime) && !(value instanceof Path);
}

/** Arithmetic that leaves the finite numbers (1/0, overflow) yields null in GROQ. */
export function finite(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

/** Reads an own attribute; inherited properties (`constructor`, `__proto__`) are not attributes. */
export function attribute(object: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(object, name) ? (object[name] ?? null) : null;
}

/** Sets an attribute, also when it is called `__proto__` (a plain assignment would set the prototype). */
export function setAttribute(object: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
  else object[name] = value;
}

/** Copies the attributes of `source` into `target` (object splats, `+` on objects). */
export function assignAttributes(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(source)) setAttribute(target, key, source[key]);
}
