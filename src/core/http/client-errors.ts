import type { Socket } from 'node:net';
import { AppError } from '../errors/app-error.ts';
import { errorBody } from './error-envelope.ts';

/** How long a refused connection may keep sending what it had started before it is cut. */
const DRAIN_MS = 2000;

/**
 * node:http's status texts, taken with `process.getBuiltinModule`, not an ESM import: an import builds the
 * module's namespace from every export, and its lazy `WebSocket` loads Node's copy of undici (the app's
 * footprint test; metrics-server.ts does the same).
 */
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (the `clientError` event): a request line
 * or header block over `maxHeaderSize` (16 KiB), a malformed request. Fastify's default answers in a shape
 * of its own (431 for a long URL) and destroys the socket while the client is still sending, so the client
 * sees a reset instead of the answer. Here: the one error envelope (414 `URI_TOO_LONG` when the request
 * line alone is over `maxUrlLength`, as the URL-length hook answers a shorter long URL; 431 for headers),
 * `Connection: close`, and the rest of what the client sends read and dropped until it closes (or briefly).
 */
export function clientErrorAnswer(maxUrlLength: number): (error: Error, socket: Socket) => void {
  return (error, socket) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(code, (error as { rawPacket?: Buffer }).rawPacket, maxUrlLength);
    const body = JSON.stringify(errorBody(refusal));
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    // Unread bytes at close make the kernel send a reset that can overtake the answer: read them instead.
    socket.on('error', () => {});
    socket.resume();
    socket.setTimeout(DRAIN_MS, () => socket.destroy());
  };
}

function refusalOf(code: string | undefined, packet: Buffer | undefined, maxUrlLength: number): AppError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError('BAD_REQUEST', 'The request was not received in time', { status: 408 });
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    if (requestLineTooLong(packet, maxUrlLength)) {
      return new AppError('URI_TOO_LONG', `The request URL is longer than ${maxUrlLength} characters`);
    }
    return new AppError('BAD_REQUEST', 'The request headers are too large', { status: 431 });
  }
  return new AppError('BAD_REQUEST', 'The request is not valid HTTP');
}

/**
 * Whether the request line is what overflowed, read from the packet Node was parsing: the request's first
 * one (measured), or a later one that still holds the request line's end or no line end at all (the line
 * spilled over packets, so it alone is longer than one packet).
 */
function requestLineTooLong(packet: Buffer | undefined, maxUrlLength: number): boolean {
  if (!packet) return false;
  const end = packet.indexOf('\r\n');
  const line = packet.subarray(0, end < 0 ? packet.length : end).toString('latin1');
  if (/^[A-Z]+ \//.test(line)) return line.length > maxUrlLength;
  return end < 0 || / HTTP\/\d\.\d$/.test(line);
}
