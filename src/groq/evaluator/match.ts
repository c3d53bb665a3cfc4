// The `match` operator: full-text matching of tokens against patterns with `*` wildcards, case
// insensitive. Text is split into tokens at punctuation and whitespace (dots only at word edges,
// so "ding.dong" stays one token); every pattern term must match some token.
import { escapeRegExp } from './values.ts';

/** The characters that separate pattern terms, as the body of a character class. */
const TERM_SEPARATORS = '!@#$%^&(),\\\\/?";:{}|[\\]+<>\\s-';
/** Those that separate a text's tokens: the same and `*`, which a term holds as its wildcard. */
const SEPARATORS = `*${TERM_SEPARATORS}`;
const TOKEN = new RegExp(`[^${SEPARATORS}]+`, 'g');
const TERM = new RegExp(`[^${TERM_SEPARATORS}]+`, 'g');
/** In a text: at the start of a token, and at its end. */
const TOKEN_START = `(?<![^${SEPARATORS}])(?=[^${SEPARATORS}])`;
const TOKEN_END = `(?![^${SEPARATORS}])`;
const EDGE_DOTS = /\b\.+|\.+\b/g;
const MAX_TERM_LENGTH = 1024;

/** A text with the dots at word edges removed: tokens are cut from this. */
function stripDots(text: string): string {
  return text.replace(EDGE_DOTS, '');
}

function tokenize(text: string): string[] {
  return stripDots(text).match(TOKEN) ?? [];
}

/**
 * A literal run of a term between wildcards, compared as a RegExp with the `i` flag and without
 * `u` (so an ASCII character equals only itself in either case, and lengths never change): `at`
 * tests it at one position, `find` finds its first occurrence from a position.
 */
interface Segment {
  length: number;
  at: RegExp;
  find: RegExp;
}

function segment(text: string): Segment {
  const source = escapeRegExp(text);
  return { length: text.length, at: new RegExp(source, 'iy'), find: new RegExp(source, 'ig') };
}

function segmentAt(part: Segment, text: string, position: number): boolean {
  part.at.lastIndex = position;
  return part.at.test(text);
}

interface Term {
  /** The literal runs between the `*`s (consecutive `*`s are one): first and last may be empty. */
  segments: Segment[];
  /**
   * For terms without a wildcard, or with one at the end only: the term found in a text (with its
   * edge dots removed) as a whole token, without cutting the text into tokens. Such expressions
   * never backtrack; other terms are matched token by token with `wholeToken`.
   */
  inText: RegExp | null;
  /**
   * Its literal parts, each of which a matching token contains, found anywhere in a text with the
   * same case-insensitive comparison: a text lacking one cannot match, without being tokenized.
   */
  parts: RegExp[];
  /** The same parts as text. */
  literals: string[];
}

function term(text: string): Term {
  const literal = text.slice(0, MAX_TERM_LENGTH).replace(/\*+/g, '*');
  const runs = literal.split('*');
  const parts = runs.filter((part) => part !== '');
  const prefixOnly = runs.length === 1 || (runs.length === 2 && runs[1] === '');
  return {
    segments: runs.map(segment),
    inText: prefixOnly ? new RegExp(`${TOKEN_START}${escapeRegExp(runs[0]!)}${runs.length === 2 ? `[^${SEPARATORS}]*` : ''}${TOKEN_END}`, 'i') : null,
    parts: parts.map((part) => new RegExp(escapeRegExp(part), 'i')),
    literals: parts,
  };
}

/**
 * Whether a whole token matches a term, in time linear in the token: the first run is anchored at
 * the start, the last at the end, and each run between is taken at its first occurrence after the
 * one before (an earlier occurrence never leaves less room for the rest). A regular expression
 * with several `.*` would backtrack: `"aaaa…b" match "****a"` tripled its time with each `*`.
 */
function wholeToken(t: Term, token: string): boolean {
  const { segments } = t;
  const first = segments[0]!;
  if (segments.length === 1) return token.length === first.length && segmentAt(first, token, 0);
  const last = segments[segments.length - 1]!;
  const end = token.length - last.length;
  if (end < first.length || !segmentAt(first, token, 0) || !segmentAt(last, token, end)) return false;
  let position = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const middle = segments[i]!;
    middle.find.lastIndex = position;
    const found = middle.find.exec(token);
    if (!found || found.index + middle.length > end) return false;
    position = found.index + middle.length;
  }
  return true;
}

/** Whether some token of a text (its edge dots removed) matches the term whole. */
function inText(t: Term, stripped: string): boolean {
  if (t.inText) return t.inText.test(stripped);
  for (const token of stripped.matchAll(TOKEN)) if (wholeToken(t, token[0])) return true;
  return false;
}

/** The pattern terms; null unless the pattern is a string or an array of strings. */
function patternTerms(pattern: unknown): Term[] | null {
  if (typeof pattern === 'string') return cachedTerms(pattern);
  if (!Array.isArray(pattern)) return null;
  const terms: Term[] = [];
  for (const part of pattern) {
    if (typeof part !== 'string') return null;
    terms.push(...cachedTerms(part));
  }
  return terms;
}

// Filters apply one constant pattern to every document: remember the last few.
const termCache = new Map<string, Term[]>();
function cachedTerms(pattern: string): Term[] {
  let terms = termCache.get(pattern);
  if (!terms) {
    terms = (stripDots(pattern).match(TERM) ?? []).map(term);
    if (termCache.size >= 64) termCache.clear();
    termCache.set(pattern, terms);
  }
  return terms;
}

/**
 * What a string must contain to match the pattern: each of these texts, compared as a RegExp with
 * the `i` flag and without `u` compares (so an ASCII character equals only itself in either case),
 * in the string with the dots at word edges removed. Null when no text matches the pattern. An
 * index narrows `path match pattern` by them; arrays of strings at the path match another way.
 */
export function matchLiterals(pattern: unknown): string[] | null {
  const terms = patternTerms(pattern);
  if (!terms || terms.length === 0) return null;
  return terms.flatMap((t) => t.literals);
}

/** The tokens of a string, or of the strings in an array (other elements are ignored). */
function textTokens(text: unknown): string[] {
  if (typeof text === 'string') return tokenize(text);
  if (!Array.isArray(text)) return [];
  const tokens: string[] = [];
  for (const part of text) if (typeof part === 'string') tokens.push(...tokenize(part));
  return tokens;
}

export function matches(text: unknown, pattern: unknown): boolean {
  const terms = patternTerms(pattern);
  if (!terms || terms.length === 0) return false;
  if (typeof text === 'string') {
    const stripped = text.includes('.') ? stripDots(text) : text;
    // Most texts of a filter do not match, and lack some term's literal part: a quick no.
    return terms.every((t) => t.parts.every((part) => part.test(stripped)) && inText(t, stripped));
  }
  const tokens = textTokens(text);
  if (tokens.length === 0) return false;
  return terms.every((t) => tokens.some((token) => wholeToken(t, token)));
}

/** BM25-style relevance of `text match pattern`, used by score(): more matching tokens, higher score. */
export function matchScore(text: unknown, pattern: unknown): number {
  const terms = patternTerms(pattern);
  if (!terms || terms.length === 0) return 0;
  const tokens = textTokens(text);
  if (tokens.length === 0) return 0;
  const k = 1.2;
  let score = 0;
  for (const term of terms) {
    let frequency = 0;
    for (const token of tokens) if (wholeToken(term, token)) frequency++;
    score += (frequency * (k + 1)) / (frequency + k);
  }
  return score;
}
