import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test can cut and restore: to the service, a cut looks like
 * the database stopping (open connections reset, new ones refused). The machine's PostgreSQL is shared
 * with other suites, so it is never stopped itself.
 */
export function createCuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  return {
    get port() {
      return port;
    },
    start(): Promise<void> {
      return new Promise((resolve, reject) => {
        server = createServer((client) => {
          const upstream = connect(target.port, target.host);
          for (const socket of [client, upstream]) {
            sockets.add(socket);
            socket.on('close', () => sockets.delete(socket));
            socket.on('error', () => socket.destroy());
          }
          client.pipe(upstream).pipe(client);
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          port = (server!.address() as { port: number }).port;
          resolve();
        });
      });
    },
    cut(): Promise<void> {
      return new Promise((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server = undefined;
      });
    },
  };
}
