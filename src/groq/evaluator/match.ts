// The `match` operator: full-text matching of tokens against patterns with `*` wildcards, case
// insensitive. Text is split into tokens at punctuation and whitespace (dots only at word edges,
// so "ding.dong" stays one token); every pattern term must match some token.

const TOKEN = /[^!@#$%^&*(),\\/?";:{}|[\]+<>\s-]+/g;
const TERM = /[^!@#$%^&(),\\/?";:{}|[\]+<>\s-]+/g;
const EDGE_DOTS = /\b\.+|\.+\b/g;
const MAX_TERM_LENGTH = 1024;

function tokenize(text: string): string[] {
  return text.replace(EDGE_DOTS, '').match(TOKEN) ?? [];
}

function termRegex(term: string): RegExp {
  const source = term.slice(0, MAX_TERM_LENGTH).replace(/\./g, '\\.').replace(/\*/g, '.*');
  return new RegExp(`^${source}$`, 'i');
}

/** The pattern terms as regular expressions; null unless the pattern is a string or an array of strings. */
function patternTerms(pattern: unknown): RegExp[] | null {
  if (typeof pattern === 'string') return cachedTerms(pattern);
  if (!Array.isArray(pattern)) return null;
  const terms: RegExp[] = [];
  for (const part of pattern) {
    if (typeof part !== 'string') return null;
    terms.push(...cachedTerms(part));
  }
  return terms;
}

// Filters apply one constant pattern to every document: remember the last few.
const termCache = new Map<string, RegExp[]>();
function cachedTerms(pattern: string): RegExp[] {
  let terms = termCache.get(pattern);
  if (!terms) {
    terms = (pattern.replace(EDGE_DOTS, '').match(TERM) ?? []).map(termRegex);
    if (termCache.size >= 64) termCache.clear();
    termCache.set(pattern, terms);
  }
  return terms;
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
  const tokens = textTokens(text);
  if (tokens.length === 0) return false;
  return terms.every((term) => tokens.some((token) => term.test(token)));
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
    for (const token of tokens) if (term.test(token)) frequency++;
    score += (frequency * (k + 1)) / (frequency + k);
  }
  return score;
}
