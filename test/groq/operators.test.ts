import { describe, expect, it } from 'vitest';
import { run } from './helpers.ts';

const cases = (rows: [string, unknown][]) => rows;

describe('operators', () => {
  it.each(
    cases([
      ['1 + 2', 3],
      ['"a" + "b"', 'ab'],
      ['[1] + [2, 3]', [1, 2, 3]],
      ['{"a": 1, "b": 2} + {"a": 3}', { a: 3, b: 2 }],
      ['1 + "a"', null],
      ['true + true', null],
      ['7 - 10', -3],
      ['"a" - "a"', null],
      ['6 * 7', 42],
      ['7 / 2', 3.5],
      ['1 / 0', null],
      ['7 % 3', 1],
      ['-7 % 3', -1],
      ['2 ** 10', 1024],
      ['10 ** 400', null],
      ['-(3)', -3],
      ['+"a"', null],
      ['-"a"', null],
    ]),
  )('arithmetic and concatenation: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it.each(
    cases([
      ['1 == 1', true],
      ['1 == 1.0', true],
      ['1 == "1"', false],
      ['null == null', true],
      ['[] == []', false],
      ['{} == {}', false],
      ['"a" != "b"', true],
      ['1 < 2', true],
      ['"abc" < "abd"', true],
      ['false < true', true],
      ['1 < "2"', null],
      ['null < 1', null],
      ['[1] < [2]', null],
      ['dateTime("2020-01-01T00:00:00Z") < dateTime("2020-01-02T00:00:00Z")', true],
      ['dateTime("2020-01-01T01:00:00+01:00") == dateTime("2020-01-01T00:00:00Z")', true],
    ]),
  )('equality and comparison: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it.each(
    cases([
      ['true && false', false],
      ['true && null', null],
      ['false && null', false],
      ['null && false', false],
      ['true || null', true],
      ['null || false', null],
      ['false || false', false],
      ['"a" || true', true],
      ['!true', false],
      ['!null', null],
      ['!1', null],
    ]),
  )('three-valued logic: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it.each(
    cases([
      ['2 in [1, 2]', true],
      ['"2" in [1, 2]', false],
      ['null in [null]', true],
      ['[1] in [[1]]', false],
      ['1 in 1', null],
      ['2 in 1..2', true],
      ['2 in 1...2', false],
      ['"b" in "a".."c"', true],
      ['2 in "a".."c"', null],
      ['"a.b" in path("a.*")', true],
      ['"a.b.c" in path("a.*")', false],
      ['"a.b.c" in path("a.**")', true],
      ['*[_id in path("drafts.**")]._id', ['drafts.p3']],
    ]),
  )('in and ranges: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it.each(
    cases([
      ['"Hello World" match "hello"', true],
      ['"Hello World" match "wor*"', true],
      ['"Hello World" match "hello universe"', false],
      ['"Hello World" match ["hello", "world"]', true],
      ['["foo bar", "baz"] match "baz"', true],
      ['"foo-bar" match "bar"', true],
      ['"ding.dong" match "dingdong"', true],
      ['"Cof.fee time" match "coffee"', true],
      ['"Hello World" match "w*d"', true],
      ['"Hello World" match "w*x"', false],
      ['"Hello World" match "*"', true],
      ['"hello" match "hell"', false],
      ['"ΟΔΟΣ" match "οδος"', true],
      ['"οδος" match "οδοσ"', true],
      ['"foo" match ["foo", "bar"]', false],
      ['"hello" match 1', false],
      ['1 match "1"', false],
      ['*[title match "eng*"]._id', ['p1']],
    ]),
  )('match: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });
});
