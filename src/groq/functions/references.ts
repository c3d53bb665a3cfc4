// references(): does a value contain a reference (`{_ref: id}`) to one of the ids, at any depth?

export function hasReference(value: unknown, ids: ReadonlySet<string>): boolean {
  // Iterative, so that deeply nested documents cannot exhaust the stack.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
      continue;
    }
    const object = current as Record<string, unknown>;
    const ref = Object.hasOwn(object, '_ref') ? object['_ref'] : undefined;
    // An object with a (truthy) _ref is a reference: its other attributes are not searched.
    if (ref) {
      if (typeof ref === 'string' && ids.has(ref)) return true;
      continue;
    }
    for (const key in object) if (Object.hasOwn(object, key)) stack.push(object[key]);
  }
  return false;
}
