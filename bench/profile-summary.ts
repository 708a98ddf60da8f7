/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --cpu-prof DIR`):
 * `node bench/profile-summary.ts FILE.cpuprofile [--top 25]`.
 * Prints self time by function and by package (node_modules/<name>, src/<folder>, node internals),
 * and inclusive time of the project's own functions: where a request's CPU goes.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
const top = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);

function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const source = /\/(src|bench)\/(.+?)\/[^/]+$/.exec(url) ?? /\/(src|bench)\/([^/]+)$/.exec(url);
  if (source) return `${source[1]}/${source[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

const label = (node: ProfileNode) => {
  const file = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(src|bench)\//, '$1/');
  return `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`;
};

const selfByFunction = new Map<string, number>();
const selfByPackage = new Map<string, number>();
for (const [id, time] of selfTime) {
  const node = byId.get(id)!;
  selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + time);
  const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
  selfByPackage.set(pkg, (selfByPackage.get(pkg) ?? 0) + time);
}

/** Inclusive time per function: each sample counts once for every distinct function on its stack. */
const inclusive = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
    const name = label(byId.get(node)!);
    if (!seen.has(name)) {
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
  }
});

const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>, filter: (name: string) => boolean = () => true) => {
  console.log(`\n## ${title}`);
  for (const [name, time] of [...map]
    .filter(([n]) => filter(n))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`${pct(time)}  ${name}`);
};

console.log(`${positionals[0]}: ${(total / 1e6).toFixed(1)} s sampled`);
print('self time by package', selfByPackage);
print('self time by function', selfByFunction);
print(
  'inclusive time (excluding idle and the event loop entry points)',
  inclusive,
  (n) => !/^\((root|program|idle|garbage collector)\)/.test(n),
);
