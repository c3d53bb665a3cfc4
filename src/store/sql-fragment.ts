// SQL built at run time, with its parameters kept apart from its text until a dialect compiles it
// (as kysely's `sql` template does): `sql\`a.id = ${id}\`` holds the text around one parameter, and
// a fragment inside another is spliced in with its own parameters. Compiling numbers the
// parameters the dialect's way (`?` on SQLite, `$1` on PostgreSQL, a column of the batch's rows in
// a batch), so no `?` is ever looked for in finished text.

export class Sql {
  /** The text around the parameters: one piece more than there are parameters. */
  readonly texts: readonly string[];
  readonly params: readonly unknown[];

  constructor(texts: readonly string[], params: readonly unknown[]) {
    this.texts = texts;
    this.params = params;
  }
}

/** Appends a value to a fragment under construction: a fragment spliced in, anything else a parameter. */
function append(texts: string[], params: unknown[], value: unknown): void {
  if (value instanceof Sql) {
    texts[texts.length - 1] += value.texts[0]!;
    for (let i = 0; i < value.params.length; i++) {
      params.push(value.params[i]);
      texts.push(value.texts[i + 1]!);
    }
  } else {
    params.push(value);
    texts.push('');
  }
}

/** A fragment: the template's text, its values as parameters, fragments among them spliced in. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const texts = [strings[0]!];
  const params: unknown[] = [];
  for (let i = 0; i < values.length; i++) {
    append(texts, params, values[i]);
    texts[texts.length - 1] += strings[i + 1]!;
  }
  return new Sql(texts, params);
}

/** Text taken as SQL: names and keywords the code chooses, never a value from outside. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/** The fragments one after the other, `separator` between them. */
export function join(fragments: readonly Sql[], separator = ', '): Sql {
  const texts = [''];
  const params: unknown[] = [];
  fragments.forEach((fragment, i) => {
    if (i > 0) texts[texts.length - 1] += separator;
    append(texts, params, fragment);
  });
  return new Sql(texts, params);
}

/** Parameters as a list: `?, ?, ?`. */
export function list(values: readonly unknown[]): Sql {
  return new Sql(['', ...values.map((_, i) => (i < values.length - 1 ? ', ' : ''))], values);
}

/** `expression IN (values)`; with no values, a condition nothing meets (an empty IN list is a syntax error in PostgreSQL). */
export function isIn(expression: string, values: readonly unknown[]): Sql {
  return values.length === 0 ? raw('1 = 0') : sql`${raw(expression)} IN (${list(values)})`;
}

export interface CompiledSql {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** The fragment's text with each parameter written as `placeholder(index)` says (from 0). */
export function compileSql(fragment: Sql, placeholder: (index: number) => string): CompiledSql {
  const { texts, params } = fragment;
  let text = texts[0]!;
  for (let i = 0; i < params.length; i++) text += placeholder(i) + texts[i + 1]!;
  return { text, params };
}
