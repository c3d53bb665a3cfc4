import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** Reads a line from the terminal without echoing it. Refuses when there is no terminal. */
export async function promptHidden(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new Error('no terminal to ask for the password: set CMS_USER_PASSWORD instead');
  }
  process.stdout.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.question('', resolve));
  } finally {
    rl.close();
    process.stdout.write('\n');
  }
}
