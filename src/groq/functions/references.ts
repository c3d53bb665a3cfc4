// references(): does a value contain a reference (`{_ref: id}`) to one of the ids, at any depth?

/**
 * Calls `visit` with the id of every reference in `value` until it returns true. An object with a
 * (truthy) `_ref` is a reference: its other attributes are not searched. Iterative, so that deeply
 * nested documents cannot exhaust the stack.
 */
function someReference(value: unknown, visit: (id: string) => boolean): boolean {
  // Only objects and arrays go on the stack: primitives cannot hold references.
  const stack: object[] = [];
  let current: unknown = value;
  for (;;) {
    if (typeof current === 'object' && current !== null) {
      if (Array.isArray(current)) {
        for (const item of current) if (typeof item === 'object' && item !== null) stack.push(item);
      } else {
        // Plain objects inherit no `_ref`, so a property read is as good as an own-property check.
        const ref = (current as { _ref?: unknown })._ref;
        if (ref) {
          if (typeof ref === 'string' && visit(ref)) return true;
        } else {
          for (const item of Object.values(current)) if (typeof item === 'object' && item !== null) stack.push(item);
        }
      }
    }
    if (stack.length === 0) return false;
    current = stack.pop();
  }
}

export function hasReference(value: unknown, ids: ReadonlySet<string>): boolean {
  return someReference(value, (id) => ids.has(id));
}

/** All ids `value` references. */
export function referencedIds(value: unknown): Set<string> {
  const ids = new Set<string>();
  someReference(value, (id) => {
    ids.add(id);
    return false;
  });
  return ids;
}
