import { describe, expect, it } from 'vitest';
import { GroqSyntaxError } from '../../src/groq/index.ts';
import { tokenize } from '../../src/groq/lexer.ts';

const kinds = (q: string): string[] => tokenize(q).map((t) => ('text' in t ? `${t.kind}:${t.text}` : 'value' in t ? `${t.kind}:${String(t.value)}` : t.kind));

describe('lexer', () => {
  it('reads punctuators longest first', () => {
    expect(kinds('a...b..c.d->e**f')).toEqual([
      'ident:a', 'punct:...', 'ident:b', 'punct:..', 'ident:c', 'punct:.', 'ident:d', 'punct:->', 'ident:e', 'punct:**', 'ident:f', 'eof',
    ]);
    expect(kinds('== => != <= >= && || :: |')).toEqual(['punct:==', 'punct:=>', 'punct:!=', 'punct:<=', 'punct:>=', 'punct:&&', 'punct:||', 'punct:::', 'punct:|', 'eof']);
  });

  it('reads numbers, and `1..2` as a range rather than a decimal', () => {
    expect(kinds('12 1.5 4e2 4.1E-2 1..2')).toEqual(['number:12', 'number:1.5', 'number:400', 'number:0.041', 'number:1', 'punct:..', 'number:2', 'eof']);
  });

  it('reads parameters and skips comments and whitespace', () => {
    expect(kinds('$p // comment\n\t@ \u00a0 ^')).toEqual(['param:p', 'punct:@', 'punct:^', 'eof']);
  });

  it('decodes string escapes in both quote styles', () => {
    const strings = tokenize(`"a\\"b" 'a\\'b' "\\\\ \\/ \\b\\f\\n\\r\\t" "\\u00e5" "\\ud83d\\ude05" "\\u{1F605}"`).flatMap((t) => (t.kind === 'string' ? [t.value] : []));
    expect(strings).toEqual(['a"b', "a'b", '\\ / \b\f\n\r\t', 'å', '😅', '😅']);
  });

  it('keeps spans of tokens', () => {
    const [first, second] = tokenize('  foo  "x"');
    expect(first).toMatchObject({ start: 2, end: 5 });
    expect(second).toMatchObject({ start: 7, end: 10 });
  });

  it.each([
    ['"abc', 0, 'unterminated string'],
    ["x == 'abc", 5, 'unterminated string'],
    ['"a\\qb"', 2, 'invalid escape sequence "\\q"'],
    ['"\\u12"', 1, 'invalid unicode escape'],
    ['"\\u{110000}"', 1, 'invalid unicode escape'],
    ['1e+', 3, 'exponent'],
    ['a # b', 2, 'unexpected character "#"'],
    ['$ x', 1, 'parameter name'],
    ['a & b', 2, 'unexpected character "&"'],
  ])('rejects %j at position %i', (query, position, message) => {
    try {
      tokenize(query);
      expect.unreachable('no error');
    } catch (error) {
      expect(error).toBeInstanceOf(GroqSyntaxError);
      expect((error as GroqSyntaxError).position).toBe(position);
      expect((error as GroqSyntaxError).message).toContain(message);
    }
  });
});
