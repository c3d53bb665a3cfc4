// What a document's content may not hold, on either engine:
// - more than 1,000 levels of objects and arrays, the document itself the first. SQLite keeps
//   documents as its binary JSON, which refuses deeper values; PostgreSQL would take them, but a
//   dataset must move between engines (export, import) and queries read the same on both;
// - text that is not Unicode: the character U+0000, or half of a surrogate pair, in a string or a
//   key. PostgreSQL's jsonb cannot hold either, and neither can be written as UTF-8.

export const MAX_DOCUMENT_DEPTH = 1000;

export const TOO_DEEP = `nests objects and arrays more than ${MAX_DOCUMENT_DEPTH} levels deep`;
export const NOT_TEXT = 'holds a string or key that is not Unicode text (the character U+0000, or half of a surrogate pair)';

function isText(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}

/** Why a value cannot be stored as (part of) a document, or undefined when it can. */
export function unstorable(value: unknown): string | undefined {
  // Iterative, so that no input can exhaust the stack.
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current === 'string') {
      if (!isText(current)) return NOT_TEXT;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_DOCUMENT_DEPTH) return TOO_DEEP;
    if (Array.isArray(current)) {
      for (const child of current) stack.push([child, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(current)) {
      if (!isText(key)) return NOT_TEXT;
      stack.push([child, depth + 1]);
    }
  }
  return undefined;
}
