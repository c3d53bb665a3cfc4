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

interface Term {
  /** The whole token, `*` for any characters. */
  token: RegExp;
  /**
   * The same, found in a text (with its edge dots removed) as a whole token, without cutting the
   * text into tokens: a term's characters are all token characters, and `*` stays in one token.
   */
  inText: RegExp;
  /**
   * Its literal parts, each of which a matching token contains, found anywhere in a text with the
   * same case-insensitive comparison: a text lacking one cannot match, without being tokenized.
   */
  parts: RegExp[];
  /** The same parts as text. */
  literals: string[];
}

function term(text: string): Term {
  const literal = text.slice(0, MAX_TERM_LENGTH);
  const escaped = literal.replace(/\./g, '\\.');
  const parts = literal.split('*').filter((part) => part !== '');
  return {
    token: new RegExp(`^${escaped.replace(/\*/g, '.*')}$`, 'i'),
    inText: new RegExp(`${TOKEN_START}${escaped.replace(/\*/g, `[^${SEPARATORS}]*`)}${TOKEN_END}`, 'i'),
    parts: parts.map((part) => new RegExp(escapeRegExp(part), 'i')),
    literals: parts,
  };
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
    return terms.every((t) => t.parts.every((part) => part.test(stripped)) && t.inText.test(stripped));
  }
  const tokens = textTokens(text);
  if (tokens.length === 0) return false;
  return terms.every((t) => tokens.some((token) => t.token.test(token)));
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
    for (const token of tokens) if (term.token.test(token)) frequency++;
    score += (frequency * (k + 1)) / (frequency + k);
  }
  return score;
}
