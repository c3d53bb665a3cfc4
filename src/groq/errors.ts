// Errors a caller can tell apart by class or by `code`: a query that does not parse, a query that
// names a parameter it was not given, and a data source that cannot answer. Type mismatches at run
// time are not errors in GROQ: they evaluate to null.

export type GroqErrorCode = 'GROQ_SYNTAX_ERROR' | 'GROQ_PARAMETER_MISSING' | 'GROQ_SOURCE_ERROR';

export class GroqError extends Error {
  readonly code: GroqErrorCode;

  constructor(code: GroqErrorCode, message: string) {
    super(message);
    this.name = 'GroqError';
    this.code = code;
  }
}

/** The query is not valid GROQ; `position` is a 0-based UTF-16 offset, `line`/`column` 1-based. */
export class GroqSyntaxError extends GroqError {
  readonly position: number;
  readonly line: number;
  readonly column: number;
  /** What the parser found wrong, without the position prefix. */
  readonly detail: string;

  constructor(query: string, position: number, detail: string) {
    const { line, column } = lineAndColumn(query, position);
    super('GROQ_SYNTAX_ERROR', `GROQ syntax error at line ${line}, column ${column}: ${detail}`);
    this.name = 'GroqSyntaxError';
    this.position = position;
    this.line = line;
    this.column = column;
    this.detail = detail;
  }
}

/** The query uses `$name` but the evaluation was given no such parameter. */
export class GroqParameterError extends GroqError {
  readonly parameter: string;

  constructor(parameter: string) {
    super('GROQ_PARAMETER_MISSING', `GROQ query parameter $${parameter} is not defined`);
    this.name = 'GroqParameterError';
    this.parameter = parameter;
  }
}

/** A DocumentSource broke its contract (e.g. returned "pending" without a way to load). */
export class GroqSourceError extends GroqError {
  constructor(message: string) {
    super('GROQ_SOURCE_ERROR', message);
    this.name = 'GroqSourceError';
  }
}

function lineAndColumn(query: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, query.length);
  for (let i = 0; i < end; i++) {
    if (query.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}
