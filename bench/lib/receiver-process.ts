import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver in a process of its own, so that benchmarks measure the server, not the
// receiver sharing its event loop. It answers 200 to every POST; GET /count reports how many came.
let received = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET') {
    response.end(String(received));
    return;
  }
  request.resume();
  request.on('end', () => {
    received++;
    response.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
