// references(): does a value contain a reference (`{_ref: id}`) to one of the ids, at any depth?

/**
 * Calls `visit` with the id of every reference in `value` until it returns true. An object with a
 * (truthy) `_ref` is a reference: its other attributes are not searched. Iterative, so that deeply
 * nested documents cannot exhaust the stack; an array's items are taken one at a time, so that
 * what the walk holds grows with the depth, not with the items (an array of millions).
 */
function someReference(value: unknown, visit: (id: string) => boolean): boolean {
  const pending: { items: readonly unknown[]; next: number }[] = [{ items: [value], next: 0 }];
  while (pending.length > 0) {
    const top = pending[pending.length - 1]!;
    if (top.next === top.items.length) {
      pending.pop();
      continue;
    }
    const current = top.items[top.next++];
    // Primitives cannot hold references.
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      pending.push({ items: current, next: 0 });
      continue;
    }
    // Plain objects inherit no `_ref`, so a property read is as good as an own-property check.
    const ref = (current as { _ref?: unknown })._ref;
    if (ref) {
      if (typeof ref === 'string' && visit(ref)) return true;
    } else {
      pending.push({ items: Object.values(current), next: 0 });
    }
  }
  return false;
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
