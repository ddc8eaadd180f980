#!/usr/bin/env node
// The ceiling of the serve rows: a bare node:http server that answers every request with
// the same bytes from memory (the file named by its argument: an answer the replica gave),
// so the table shows how close the replica comes to what Node itself serves on this machine.
// Prints its URL as its first line, as the sandbox and `tenders serve` do.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[2]);
const headers = { 'content-type': process.argv[3] ?? 'application/json', 'content-length': body.length };
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, headers).end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
