/**
 * The ceiling: a raw `node:http` server answering one fixed JSON of about 200 bytes. Whatever the
 * service reaches is compared to this, measured in the same run on the same core.
 */
import { createServer } from 'node:http';
import { FIXED_USER } from './fixed-user.ts';

const body = JSON.stringify(FIXED_USER);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };

createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
