// Turns a query into tokens. Whitespace and `//` comments are skipped; every token keeps its
// source span so that the parser can point at it in a syntax error.
import { GroqSyntaxError } from './errors.ts';

export type Token =
  | { kind: 'ident'; text: string; start: number; end: number }
  | { kind: 'param'; text: string; start: number; end: number }
  | { kind: 'number'; value: number; start: number; end: number }
  | { kind: 'string'; value: string; start: number; end: number }
  | { kind: 'punct'; text: string; start: number; end: number }
  | { kind: 'eof'; start: number; end: number };

/** The longest punctuator at `pos` (so that `...` is not read as `..` then `.`), or null. */
function punctuatorAt(query: string, pos: number): string | null {
  const c = query[pos];
  const next = query[pos + 1];
  switch (c) {
    case '.':
      return next !== '.' ? '.' : query[pos + 2] === '.' ? '...' : '..';
    case '-':
      return next === '>' ? '->' : '-';
    case '*':
      return next === '*' ? '**' : '*';
    case '=':
      return next === '=' ? '==' : next === '>' ? '=>' : '=';
    case '!':
    case '<':
    case '>':
      return next === '=' ? `${c}=` : c;
    case '&':
      return next === '&' ? '&&' : null;
    case '|':
      return next === '|' ? '||' : '|';
    case ':':
      return next === ':' ? '::' : ':';
    case '+': case '/': case '%': case '@': case '^': case '[': case ']': case '{': case '}': case '(': case ')': case ',': case ';':
      return c;
    default:
      return null;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "'": "'", '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t',
};

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isIdentStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdentPart = (c: number): boolean => isIdentStart(c) || isDigit(c);
// Space, \t \n \v \f \r, NEL and no-break space, as the GROQ grammar lists them.
const isWhitespace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 0x85 || c === 0xa0;

export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  const fail = (position: number, detail: string): never => {
    throw new GroqSyntaxError(query, position, detail);
  };
  let pos = 0;
  const n = query.length;

  while (true) {
    // Whitespace and comments.
    while (pos < n) {
      const c = query.charCodeAt(pos);
      if (isWhitespace(c)) pos++;
      else if (c === 47 && query.charCodeAt(pos + 1) === 47) {
        const newline = query.indexOf('\n', pos);
        pos = newline < 0 ? n : newline + 1;
      } else break;
    }
    if (pos >= n) break;

    const start = pos;
    const c = query.charCodeAt(pos);

    if (isDigit(c)) {
      while (isDigit(query.charCodeAt(pos))) pos++;
      if (query.charCodeAt(pos) === 46 && isDigit(query.charCodeAt(pos + 1))) {
        pos++;
        while (isDigit(query.charCodeAt(pos))) pos++;
      }
      const e = query.charCodeAt(pos);
      if (e === 101 || e === 69) {
        pos++;
        const sign = query.charCodeAt(pos);
        if (sign === 43 || sign === 45) pos++;
        if (!isDigit(query.charCodeAt(pos))) fail(pos, 'expected the digits of an exponent');
        while (isDigit(query.charCodeAt(pos))) pos++;
      }
      tokens.push({ kind: 'number', value: Number(query.slice(start, pos)), start, end: pos });
      continue;
    }

    if (isIdentStart(c)) {
      while (isIdentPart(query.charCodeAt(pos))) pos++;
      tokens.push({ kind: 'ident', text: query.slice(start, pos), start, end: pos });
      continue;
    }

    if (c === 36 /* $ */) {
      pos++;
      if (!isIdentStart(query.charCodeAt(pos))) fail(pos, 'expected a parameter name after "$"');
      while (isIdentPart(query.charCodeAt(pos))) pos++;
      tokens.push({ kind: 'param', text: query.slice(start + 1, pos), start, end: pos });
      continue;
    }

    if (c === 34 || c === 39 /* " ' */) {
      const { value, end } = readString(query, start, fail);
      tokens.push({ kind: 'string', value, start, end });
      pos = end;
      continue;
    }

    const punct = punctuatorAt(query, pos) ?? fail(pos, `unexpected character ${JSON.stringify(query[pos])}`);
    pos += punct.length;
    tokens.push({ kind: 'punct', text: punct, start, end: pos });
  }
  tokens.push({ kind: 'eof', start: n, end: n });
  return tokens;
}

function readString(
  query: string,
  start: number,
  fail: (position: number, detail: string) => never,
): { value: string; end: number } {
  const quote = query.charCodeAt(start);
  let pos = start + 1;
  let value = '';
  let chunkStart = pos;
  while (true) {
    if (pos >= query.length) fail(start, 'unterminated string: expected a closing quote');
    const c = query.charCodeAt(pos);
    if (c === quote) {
      value += query.slice(chunkStart, pos);
      return { value, end: pos + 1 };
    }
    if (c !== 92 /* \ */) {
      pos++;
      continue;
    }
    value += query.slice(chunkStart, pos);
    const escape = query[pos + 1] ?? '';
    if (escape === 'u') {
      const { text, end } = readUnicodeEscape(query, pos, fail);
      value += text;
      pos = end;
    } else {
      const replacement = SIMPLE_ESCAPES[escape];
      if (replacement === undefined) fail(pos, `invalid escape sequence "\\${escape}"`);
      value += replacement;
      pos += 2;
    }
    chunkStart = pos;
  }
}

/** `\uXXXX` (a UTF-16 code unit; surrogate pairs come as two escapes) or `\u{X...}` (a code point). */
function readUnicodeEscape(
  query: string,
  pos: number,
  fail: (position: number, detail: string) => never,
): { text: string; end: number } {
  if (query[pos + 2] === '{') {
    const close = query.indexOf('}', pos + 3);
    const hex = close < 0 ? '' : query.slice(pos + 3, close);
    const codePoint = /^[0-9a-fA-F]{1,6}$/.test(hex) ? parseInt(hex, 16) : NaN;
    if (!(codePoint <= 0x10ffff)) fail(pos, 'invalid unicode escape: expected \\u{...} with 1 to 6 hex digits');
    return { text: String.fromCodePoint(codePoint), end: close + 1 };
  }
  const hex = query.slice(pos + 2, pos + 6);
  if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(pos, 'invalid unicode escape: expected \\u and 4 hex digits');
  return { text: String.fromCharCode(parseInt(hex, 16)), end: pos + 6 };
}
