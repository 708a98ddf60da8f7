import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How much of an unwanted request body is read and thrown away, at most, before the socket is closed. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
/** How long, at most, the socket stays open for it. */
export const LINGER_MAX_MS = 5000;

const lingering = new WeakSet<Socket>();

/**
 * A refused request body (413 over the limit, or any answer that closes the connection before the
 * body was read) must not cost the client its answer. Node closes such a connection as soon as the
 * answer is written (`Connection: close` → `socket.destroySoon()`); the unread body still arriving
 * then makes the kernel reset the connection, and a client still sending (undici, browsers, curl)
 * reports EPIPE / ECONNRESET instead of reading the 413 already in its buffer.
 *
 * So such a socket closes the way web servers' "lingering close" does: the answer is sent and the
 * sending side shut (FIN), the rest of the body is read and discarded until the client stops
 * (it closes once it has its answer), up to LINGER_MAX_BYTES or LINGER_MAX_MS, then it is closed.
 */
export function registerLingeringClose(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && /\bclose\b/i.test(String(reply.getHeader('connection') ?? '')))
      lingerOnClose(request.raw.socket);
    done(null, payload);
  });
}

function lingerOnClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // Node calls destroySoon() once the answer is written (node:_http_server, resOnFinish).
  socket.destroySoon = () => {
    let drained = 0;
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, LINGER_MAX_MS);
    timer.unref();
    socket.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_MAX_BYTES) close();
    });
    socket.once('end', close);
    socket.once('close', () => clearTimeout(timer));
    socket.end();
    return socket;
  };
}
