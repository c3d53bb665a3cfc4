/** Prints benchmark rows as an aligned table. */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  console.log(`\n${title}`);
  for (const [index, row] of cells.entries()) {
    console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  }
}

export function ratio(value: number, baseline: number): string {
  return baseline === 0 ? 'n/a' : `${(value / baseline).toFixed(2)}x`;
}

/** PostgreSQL for benchmarks: BENCH_DATABASE_URL, else the local server if it answers. */
export async function benchPostgresUrl(): Promise<string | undefined> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    console.log(`(PostgreSQL at ${url} does not answer: its rows are skipped)`);
    return undefined;
  }
}
