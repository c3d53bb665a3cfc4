// How deeply a document may nest objects and arrays: 1,000 levels, the document itself the first.
// SQLite keeps documents as its binary JSON, which refuses deeper values; PostgreSQL would take
// them, but a dataset must move between engines (export, import) and queries read the same on both.

export const MAX_DOCUMENT_DEPTH = 1000;

/** Whether a value nests objects and arrays more than MAX_DOCUMENT_DEPTH levels deep. */
export function nestsTooDeep(value: unknown): boolean {
  // Iterative, so that no input can exhaust the stack.
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_DOCUMENT_DEPTH) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

export const TOO_DEEP = `nests objects and arrays more than ${MAX_DOCUMENT_DEPTH} levels deep`;
