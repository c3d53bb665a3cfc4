/**
 * What must hold after any request, however hostile: the prototypes every object inherits from
 * gained no properties (own names, enumerable or not, so a deleted built-in shows too).
 */
export function prototypeSnapshot(): Record<string, string[]> {
  return {
    object: Object.getOwnPropertyNames(Object.prototype).sort(),
    array: Object.getOwnPropertyNames(Array.prototype).sort(),
    function: Object.getOwnPropertyNames(Function.prototype).sort(),
    string: Object.getOwnPropertyNames(String.prototype).sort(),
  };
}
