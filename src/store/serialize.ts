/**
 * JSON text of a stored object, computed once per object: a written document is stored twice
 * (current table and revision snapshot), and serializing it twice was a measurable part of an
 * import. Objects handed to the store are not modified afterwards, so the text stays valid.
 */
const texts = new WeakMap<object, string>();

export function jsonText(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}
