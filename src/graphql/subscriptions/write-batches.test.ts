import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { describe, it } from 'node:test';
import { createWriteBatches } from './write-batches.ts';

/** A socket that records each write it is asked to make (one entry per system call a TCP socket would make). */
function recordingSocket() {
  const writes: string[][] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      writes.push([String(chunk)]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => String(chunk)));
      done();
    },
  });
  return { socket, writes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('write batches', () => {
  it("sends the frames a burst writes to one socket in one write, once the burst's microtasks have run", async () => {
    const batches = createWriteBatches();
    const a = recordingSocket();
    const b = recordingSocket();
    for (const frame of ['1', '2', '3']) {
      batches.hold(a.socket);
      a.socket.write(frame);
      // The next frame comes from a later microtask of the same burst (a subscriber's next payload).
      await Promise.resolve();
      batches.hold(b.socket);
      b.socket.write(frame);
    }
    assert.deepEqual(a.writes, [], 'held until the burst ends');
    assert.equal(batches.holding, 2);
    await tick();
    assert.deepEqual(a.writes, [['1', '2', '3']]);
    assert.deepEqual(b.writes, [['1', '2', '3']]);
    assert.equal(batches.holding, 0);
  });

  it('writes at once again after a burst, and holds nothing for a destroyed socket', async () => {
    const batches = createWriteBatches();
    const a = recordingSocket();
    batches.hold(a.socket);
    a.socket.write('first');
    await tick();
    a.socket.write('unheld');
    assert.deepEqual(a.writes, [['first'], ['unheld']]);
    a.socket.destroy();
    batches.hold(a.socket);
    assert.equal(batches.holding, 0);
  });
});
