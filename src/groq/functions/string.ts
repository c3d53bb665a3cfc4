// string:: functions. lower() and upper() are also in the global namespace.
import { binary, unary } from './define.ts';
import type { Namespace } from './types.ts';

export const stringFunctions: Namespace = {
  lower: unary((v) => (typeof v === 'string' ? v.toLowerCase() : null)),
  upper: unary((v) => (typeof v === 'string' ? v.toUpperCase() : null)),
  split: binary((text, separator) => {
    if (typeof text !== 'string' || typeof separator !== 'string') return null;
    if (text.length === 0) return [];
    // An empty separator splits into code points, not UTF-16 units.
    return separator.length === 0 ? Array.from(text) : text.split(separator);
  }),
  startsWith: binary((text, prefix) => (typeof text === 'string' && typeof prefix === 'string' ? text.startsWith(prefix) : null)),
};
