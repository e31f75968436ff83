/**
 * Summarises a V8 CPU profile (node --cpu-prof, `npm run bench -- --cpu-prof DIR`) as two tables of self
 * time: by where the code lives (a package, a folder of gridgate's, Node's internals, GC, idle) and by
 * function. A flame graph shows the same in Chrome DevTools; this fits in a terminal and in bench/README.
 *
 *   npx tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds from each sample to the one before it. */
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  micros: number;
}

/** Where a function's code lives: a package, a top folder of gridgate's, Node's internals, or V8's own. */
export function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = path.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? path);
  }
  const ours = /\/(functions|bench|scripts|dist)\/([^/]+)/.exec(path);
  return ours ? `${ours[1]}/${ours[2]}` : path;
}

/** Self time per node, then summed by `key`, largest first. */
export function selfTimes(profile: CpuProfile, key: (node: ProfileNode) => string): SelfTime[] {
  const byNode = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const totals = new Map<string, number>();
  for (const node of profile.nodes) {
    const micros = byNode.get(node.id);
    if (micros) totals.set(key(node), (totals.get(key(node)) ?? 0) + micros);
  }
  return [...totals].map(([name, micros]) => ({ name, micros })).sort((a, b) => b.micros - a.micros);
}

export function summarize(profile: CpuProfile, top: number): string {
  const byPlace = selfTimes(profile, (node) => placeOf(node.callFrame.url, node.callFrame.functionName));
  const idle = byPlace.find((entry) => entry.name === '(idle)')?.micros ?? 0;
  const total = byPlace.reduce((sum, entry) => sum + entry.micros, 0);
  const busy = total - idle;
  const row = ({ name, micros }: SelfTime) =>
    `${(micros / 1000).toFixed(1).padStart(9)} ms ${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${name}`;
  const byFunction = selfTimes(profile, ({ callFrame }) => {
    const where = callFrame.url ? `${placeOf(callFrame.url, '')}:${callFrame.lineNumber + 1}` : '';
    return `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
  });
  return [
    `${(total / 1000).toFixed(0)} ms profiled, ${(busy / 1000).toFixed(0)} ms busy (shares below are of busy time)`,
    'self time by place:',
    ...byPlace
      .filter((entry) => entry.name !== '(idle)')
      .slice(0, top)
      .map(row),
    'self time by function:',
    ...byFunction
      .filter((entry) => !entry.name.startsWith('(idle)'))
      .slice(0, top)
      .map(row),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, flag, count] = process.argv.slice(2);
  if (!file || (flag !== undefined && flag !== '--top')) {
    console.error('usage: npx tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--top N]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(summarize(profile, Number(count ?? 25)));
}
