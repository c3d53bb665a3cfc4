// All built-in functions by namespace. The parser looks functions up here to check that they
// exist and how many arguments they take; the compiler to build their executors. To add a
// function, add it to its namespace file (or a new file registered below).
import { arrayFunctions } from './array.ts';
import { dateTimeFunctions } from './datetime.ts';
import { diffFunctions } from './diff.ts';
import { geoFunctions, geoGlobalFunctions } from './geo.ts';
import { globalFunctions } from './global.ts';
import { mathFunctions } from './math.ts';
import { ptFunctions, ptGlobalFunctions } from './pt.ts';
import { releasesFunctions } from './releases.ts';
import { sanityFunctions } from './sanity.ts';
import { stringFunctions } from './string.ts';
import type { GroqFunction, Namespace } from './types.ts';

const NAMESPACES: Readonly<Record<string, Namespace>> = {
  // Extensions add their constructors (geo(), pt()) to the global namespace.
  global: { ...globalFunctions, ...geoGlobalFunctions, ...ptGlobalFunctions },
  string: stringFunctions,
  array: arrayFunctions,
  math: mathFunctions,
  dateTime: dateTimeFunctions,
  pt: ptFunctions,
  geo: geoFunctions,
  sanity: sanityFunctions,
  releases: releasesFunctions,
  diff: diffFunctions,
};

export function hasNamespace(namespace: string): boolean {
  return Object.hasOwn(NAMESPACES, namespace);
}

export function findFunction(namespace: string, name: string): GroqFunction | undefined {
  const functions = Object.hasOwn(NAMESPACES, namespace) ? NAMESPACES[namespace] : undefined;
  return functions && Object.hasOwn(functions, name) ? functions[name] : undefined;
}
