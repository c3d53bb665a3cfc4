/**
 * A statement's text as the SQLite connection prepares it: every `?` written `+?`.
 *
 * SQLite (as better-sqlite3 builds it) expires a prepared statement whenever a new value is bound
 * to a bare parameter that its planner compared with another expression, so that the next run
 * plans again with the value. It does so for a parameter in an equality of any statement that
 * sorts or takes a MIN or MAX (`WHERE project_id = ? ... ORDER BY`, `SELECT MAX(revision) ... WHERE
 * document_id = ?`): better-sqlite3 binds on every run, so every run of such a statement was
 * prepared again, which costs as much as the statement itself or more. The no-op unary `+` makes
 * the parameter an expression the planner does not read; the value, its type and the indexes used
 * stay the same. What the planner loses is the use of a bound value for a plan, which this store
 * never wants: its statements have one plan whatever the values (and it keeps no sqlite_stat4).
 *
 * Every `?` is a parameter: statements hold no other (see postgres/placeholders.ts).
 */
export function withParameterExpressions(text: string): string {
  return text.replaceAll('?', '+?');
}
