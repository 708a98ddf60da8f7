/**
 * What one webhook attempt costs the sending process: `node bench/attempt-cost.ts [--base DIR]`.
 * The delivery sender of this tree (B) and of DIR (A: another checkout, e.g. `git archive REV | tar -x`)
 * each send signed POSTs of a 400-byte event to a receiver in a process of its own (answering 204), 1 and 16
 * at a time, in alternating rounds; the figure is this process's CPU (user + system) per attempt, median of
 * the rounds. Without `--base`, B alone.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { DeliverySender } from '../src/modules/webhooks/delivery-sender.ts';
import { moveToLoadCore } from './suite/processes.ts';

if (process.argv.includes('--serve')) {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.send!((server.address() as AddressInfo).port);
} else {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      rounds: { type: 'string', default: '6' },
      attempts: { type: 'string', default: '5000' },
    },
  });
  // The receiver on the other core, as a healthy receiver elsewhere would be.
  const receiver = fork(import.meta.filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [port] = (await once(receiver, 'message')) as [number];
  moveToLoadCore(receiver.pid!);

  const load = async (dir: string) => {
    const module = (await import(pathToFileURL(resolve(dir, 'src/modules/webhooks/delivery-sender.ts')).href)) as {
      createDeliverySender: (options: { timeoutMs: number; guard: unknown }) => DeliverySender;
    };
    const guard = (await import(pathToFileURL(resolve(dir, 'src/modules/webhooks/url-guard.ts')).href)) as {
      createUrlGuard: (options: { enforced: boolean }) => unknown;
    };
    return module.createDeliverySender({ timeoutMs: 10_000, guard: guard.createUrlGuard({ enforced: false }) });
  };
  const senders: Array<[string, DeliverySender]> = [['B', await load('.')]];
  if (values.base) senders.unshift(['A', await load(values.base)]);

  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const payload = JSON.stringify({ id: 'evt_1', type: 'user.created', data: { name: 'x'.repeat(300) } });
  const attempt = { url: `http://127.0.0.1:${port}/hook`, secrets: [secret], eventId: 'evt_1', payload };
  const stop = new AbortController();
  const run = async (sender: DeliverySender, count: number, inFlight: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < count) {
          const answer = await sender.send(attempt, stop.signal);
          if (answer.kind !== 'answered' || answer.status !== 204) throw new Error(JSON.stringify(answer));
        }
      }),
    );
  };
  const count = Number(values.attempts);
  for (const [, sender] of senders) await run(sender, 2000, 4); // warm
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const inFlight of [1, 16]) {
    const cpu = new Map<string, number[]>(senders.map(([name]) => [name, []]));
    for (let round = 0; round < Number(values.rounds); round += 1)
      for (const [name, sender] of senders) {
        const before = process.cpuUsage();
        await run(sender, count, inFlight);
        const used = process.cpuUsage(before);
        cpu.get(name)!.push((used.user + used.system) / count);
      }
    const figures = senders.map(([name]) => `${name} ${median(cpu.get(name)!).toFixed(1)} µs`);
    const ratio = values.base ? `, B/A ${(median(cpu.get('B')!) / median(cpu.get('A')!)).toFixed(2)}` : '';
    console.log(`${inFlight} in flight: CPU per attempt ${figures.join(', ')}${ratio}`);
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const [, sender] of senders) await sender.close();
  receiver.kill();
}
