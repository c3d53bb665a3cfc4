// string:: functions. lower() and upper() are also in the global namespace.
import { binary, overText } from './define.ts';
import type { Namespace } from './types.ts';

export const stringFunctions: Namespace = {
  lower: overText(1, (text) => text.toLowerCase()),
  upper: overText(1, (text) => text.toUpperCase()),
  split: overText(2, (text, separator) => {
    if (typeof separator !== 'string') return null;
    if (text.length === 0) return [];
    // An empty separator splits into code points, not UTF-16 units.
    return separator.length === 0 ? Array.from(text) : text.split(separator);
  }),
  startsWith: binary((text, prefix) => (typeof text === 'string' && typeof prefix === 'string' ? text.startsWith(prefix) : null)),
};
