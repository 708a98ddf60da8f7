import type { Duplex } from 'node:stream';

/**
 * One write per socket for the frames a burst of work sends on it once it is held: a held socket (the
 * raw connection the server's `upgrade` event handed over) is corked, and every corked socket is
 * uncorked once the burst's microtasks have run (one `process.nextTick` for all of them). A subscriber
 * with N events waiting holds its socket (live-operation.ts, `onBacklog`), so they cost one system call,
 * not N: the per-socket write is the largest part of a fan-out's cost, and a server that fell behind
 * catches up in one write per socket instead of one per
 * socket and event. A single event is written at once (the client reads while the next sockets are written).
 */
export function createWriteBatches() {
  const corked = new Set<Duplex>();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    for (const socket of corked) socket.uncork();
    corked.clear();
  };
  return {
    /** Holds what is written to `socket` until the current burst ends. */
    hold(socket: Duplex): void {
      if (corked.has(socket) || socket.destroyed) return;
      socket.cork();
      corked.add(socket);
      if (!scheduled) {
        scheduled = true;
        process.nextTick(flush);
      }
    },
    /** Sockets holding frames now (tests). */
    get holding(): number {
      return corked.size;
    },
  };
}

export type WriteBatches = ReturnType<typeof createWriteBatches>;
