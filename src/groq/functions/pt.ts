// The Portable Text extension: pt::text() and the global constructor pt().
import { isObject } from '../evaluator/values.ts';
import { unary } from './define.ts';
import type { Namespace } from './types.ts';

/** The text of a block: its span children's text, joined; null if it is not a block. */
function blockText(block: Record<string, unknown>): string | null {
  const children = block['children'];
  if (typeof block['_type'] !== 'string' || !Array.isArray(children)) return null;
  let text = '';
  for (const child of children) {
    if (isObject(child) && child['_type'] === 'span' && typeof child['text'] === 'string') text += child['text'];
  }
  return text;
}

/** Texts of the blocks in a (possibly nested) array; other elements are skipped. */
function blockTexts(array: unknown[], into: string[]): string[] {
  for (const item of array) {
    if (Array.isArray(item)) blockTexts(item, into);
    else if (isObject(item)) {
      const text = blockText(item);
      if (text !== null) into.push(text);
    }
  }
  return into;
}

function isBlock(value: unknown): boolean {
  return isObject(value) && blockText(value) !== null;
}

export const ptFunctions: Namespace = {
  /** Plain text of a block or an array of blocks, blocks separated by a blank line. */
  text: unary((value) => {
    if (isObject(value)) return blockText(value);
    if (!Array.isArray(value)) return null;
    const texts = blockTexts(value, []);
    return texts.length > 0 ? texts.join('\n\n') : null;
  }),
};

export const ptGlobalFunctions: Namespace = {
  /** pt(value): the value if it is a Portable Text block or an array of blocks, else null. */
  pt: unary((value) => (isBlock(value) || (Array.isArray(value) && value.length > 0 && value.every(isBlock)) ? value : null)),
};
