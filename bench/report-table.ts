/** The report as people read it: aligned tables of milliseconds and ratios, one verdict per target. */
import { COMMANDS } from './command-latency';
import type { Environment } from './environment';
import { AFTERMATH_MS } from './new-session-latency';
import {
  type CommandReport,
  type NewSessionReport,
  type PathSessionCpu,
  type Ratios,
  TARGETS,
} from './report';
import { type MedianInterval, median, type Summary } from './stats';

const ms = (value: number, digits = 2) => value.toFixed(digits);
const ratio = (value: number) => value.toFixed(3);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const COMPARISON_HEADER = [
  '',
  'direct p50',
  'p90',
  'p99',
  'gridgate p50',
  'p90',
  'p99',
  '+p50 ms',
  'ratio p50',
  'p90',
  'p99',
];

function comparisonRow(
  name: string,
  direct: Summary,
  gridgate: Summary,
  r: Ratios,
  digits: number,
): string[] {
  return [
    name,
    ...[
      direct.median,
      direct.p90,
      direct.p99,
      gridgate.median,
      gridgate.p90,
      gridgate.p99,
      r.addedMedianMs,
    ].map((value) => ms(value, digits)),
    ...[r.median, r.p90, r.p99].map(ratio),
  ];
}

const ratioLine = (label: string, r: Ratios) =>
  `${label}  p50 ${ratio(r.median)}  p90 ${ratio(r.p90)}  p99 ${ratio(r.p99)}  (${r.addedMedianMs >= 0 ? '+' : ''}${ms(r.addedMedianMs)} ms at p50)`;

const spread = (values: number[]) =>
  `median ${ratio(median(values))}, range ${ratio(Math.min(...values))}–${ratio(Math.max(...values))}`;

export function formatEnvironment(preset: string, env: Environment): string {
  const lines = [
    `gridgate bench (${preset}): ${env.cpus} CPUs, load ${env.loadAverage1m.toFixed(2)}, node ${env.node}, Chromium ${env.chromium}, client undici (keep-alive)`,
  ];
  if (env.foreignChromiumProcesses > 0) {
    lines.push(
      `note: ${env.foreignChromiumProcesses} Chromium processes of someone else's are running; expect noise`,
    );
  }
  return lines.join('\n');
}

export function formatCommandReport(report: CommandReport): string {
  const target = `target ≤ ${TARGETS.commandMedianRatio.toFixed(2)}`;
  const { direct, gridgate, sameBrowser, nginx, plainNode, ggr } = report.paths;
  const cpu = report.cpuPer10k;
  return [
    `Per-command latency, ms: ${report.roundsRun} rounds × ${report.plan.iterations} turns of the ${COMMANDS.length}-command mix (direct four times a turn)`,
    table(COMPARISON_HEADER, [
      ...COMMANDS.map((command) => {
        const c = report.perCommand[command];
        return comparisonRow(command, c.direct, c.gridgate, c.ratio, 2);
      }),
      comparisonRow('all commands', direct, gridgate, report.ratio, 2),
    ]),
    '',
    table(
      ['all commands, by path', 'n', 'p50', 'p90', 'p99'],
      (
        [
          ['direct: own chromedriver and Chromium', direct],
          ['gridgate', gridgate],
          ["same browser: gridgate's chromedriver, straight", sameBrowser],
          ['nginx in front of the same browser', nginx],
          ['plain Node proxy in front of the same browser', plainNode],
          ...(ggr ? [['ggr in front of its own chromedriver and Chromium', ggr] as const] : []),
        ] as const
      ).map(([name, s]) => [name, String(s.count), ...[s.median, s.p90, s.p99].map((v) => ms(v))]),
    ),
    ratioLine('gridgate ÷ direct (the issue’s ratio):       ', report.ratio),
    ratioLine('gridgate ÷ same browser straight:            ', report.sameBrowserRatio),
    ratioLine('same browser ÷ direct (two equal browsers):  ', report.browserToBrowserRatio),
    ratioLine('nginx ÷ direct (a proxy that costs ~nothing):', report.reference.nginx),
    ratioLine('plain Node proxy ÷ direct (the Node floor):  ', report.reference.plainNode),
    ratioLine('gridgate ÷ plain Node proxy (its own share): ', report.reference.gridgateOverPlainNode),
    ...('skipped' in report.ggr
      ? [`ggr: not measured (${report.ggr.skipped})`]
      : [
          ratioLine('ggr ÷ direct (the router gridgate replaces): ', report.ggr.overDirect),
          ratioLine('gridgate ÷ ggr:                              ', report.ggr.gridgateOverGgr),
        ]),
    `per-round ratio of medians: vs direct ${spread(report.roundRatios.direct)}; vs same browser ${spread(report.roundRatios.sameBrowser)}`,
    `gridgate CPU per proxied command (user + system): ${report.gridgateCpuMicrosPerCommand.toFixed(0)} µs`,
    `CPU seconds per 10,000 commands (/proc, user + system): gridgate's Node ${cpu.gridgateNode.toFixed(2)}, the pasta into its browser's namespace ${cpu.pasta.toFixed(2)}, plain Node proxy ${cpu.plainNode.toFixed(2)}, nginx ${cpu.nginx.toFixed(2)}; browser (chromedriver + Chromium) direct ${cpu.directBrowser.toFixed(2)}, behind gridgate ${cpu.gridgateBrowser.toFixed(2)}`,
    ...(cpu.gridgateNodeTurns === undefined || cpu.gridgateNodeBetweenTurns === undefined
      ? []
      : [
          `  gridgate's Node, of its ${cpu.gridgateNode.toFixed(2)}: ${cpu.gridgateNodeTurns.toFixed(2)} during its own turns (the command path), ${cpu.gridgateNodeBetweenTurns.toFixed(2)} between them (background work while the other paths take theirs)`,
        ]),
    ...(cpu.plainNodeTurns === undefined || cpu.plainNodeBetweenTurns === undefined
      ? []
      : [
          `  plain Node proxy, of its ${cpu.plainNode.toFixed(2)}: ${cpu.plainNodeTurns.toFixed(2)} during its own turns, ${cpu.plainNodeBetweenTurns.toFixed(2)} between them`,
        ]),
    ...ggrCpuLines(cpu),
    `Chromium flags identical for direct and gridgate: ${report.flags.identical ? 'yes' : 'NO'}`,
    ...(report.ggrFlags
      ? [`Chromium flags identical for direct and ggr: ${report.ggrFlags.identical ? 'yes' : 'NO'}`]
      : []),
    `=> per-command ratio of medians ${ratio(report.ratio.median)}  ${target}  ${report.verdict}   (same browser: ${ratio(report.sameBrowserRatio.median)} ${report.sameBrowserVerdict})`,
  ].join('\n');
}

/** ggr's CPU per 10,000 commands beside gridgate's (its process and its split; its browser), when measured. */
function ggrCpuLines(cpu: CommandReport['cpuPer10k']): string[] {
  if (cpu.ggr === undefined || cpu.ggrBrowser === undefined) return [];
  const split =
    cpu.ggrTurns === undefined || cpu.ggrBetweenTurns === undefined
      ? ''
      : ` (${cpu.ggrTurns.toFixed(2)} during its own turns, ${cpu.ggrBetweenTurns.toFixed(2)} between them)`;
  return [
    `  ggr's process ${cpu.ggr.toFixed(2)}${split}; its browser (chromedriver + Chromium) ${cpu.ggrBrowser.toFixed(2)}`,
    `  gridgate's Node ÷ ggr's process: ${ratio(cpu.gridgateNode / cpu.ggr)} in all${cpu.gridgateNodeTurns !== undefined && cpu.ggrTurns ? `, ${ratio(cpu.gridgateNodeTurns / cpu.ggrTurns)} over their own turns` : ''}`,
  ];
}

/** "low–high, NN.N %": a median's confidence interval. */
const interval = (value: MedianInterval, format: (n: number) => string) =>
  `${format(value.low)}–${format(value.high)}, ${(value.confidence * 100).toFixed(1)} %`;

export function formatNewSessionReport(report: NewSessionReport): string {
  const { direct, gridgate } = report.paths;
  const ggr = 'skipped' in report.ggr ? undefined : report.ggr;
  const cpuPaths = (['direct', 'gridgate', 'ggr'] as const).filter((path) => report.cpu[path] !== undefined);
  const cpuOf = (path: (typeof cpuPaths)[number]) => report.cpu[path] as PathSessionCpu;
  const whole = (value: number) => ms(value, 0);
  return [
    `New-session latency, ms: ${report.roundsRun} rounds, alternating (direct = POST /session to a running chromedriver), gridgate warm: ${report.warm}`,
    table(COMPARISON_HEADER, [comparisonRow('new session', direct, gridgate, report.ratio, 0)]),
    `each round, direct/gridgate${ggr ? '/ggr' : ''}: ${report.rounds.map((r) => [r.ms.direct, r.ms.gridgate, ...(ggr ? [r.ms.ggr ?? Number.NaN] : [])].map(whole).join('/')).join('  ')}`,
    `=> new-session ratio of medians ${ratio(report.ratio.median)}  target ≤ ${report.target.toFixed(2)}  ${report.verdict}`,
    `   per-round ratios: median ${ratio(report.roundRatio.median)}, ${interval(report.roundRatio, ratio)}`,
    ...(ggr
      ? [
          `ggr (in front of its own running chromedriver) p50 ${whole(ggr.median.median)} ms (${interval(ggr.median, whole)}), p90 ${whole(ggr.summary.p90)}; direct p50 ${whole(direct.median)}, gridgate p50 ${whole(gridgate.median)}`,
          `=> gridgate ÷ ggr, ratio of medians ${ratio(ggr.gridgateOverGgr.median)} (p90 ${ratio(ggr.gridgateOverGgr.p90)}); per-round ratios: median ${ratio(ggr.roundRatio.median)}, ${interval(ggr.roundRatio, ratio)}`,
        ]
      : [`ggr: not measured (${(report.ggr as { skipped: string }).skipped})`]),
    `CPU seconds per new session (user + system of each path's process tree: gridgate and all below it; the direct chromedriver and its Chromium${ggr ? "; ggr's process and its chromedriver's tree" : ''}), median (interval):`,
    ...cpuPaths.map((path) => {
      const cpu = cpuOf(path);
      const s = (value: number) => value.toFixed(3);
      return `  ${path.padEnd(8)}  to the answer ${s(cpu.toAnswer.median)} (${interval(cpu.toAnswer, s)})   with the ${AFTERMATH_MS} ms after it ${s(cpu.withAftermath.median)} (${interval(cpu.withAftermath, s)})`;
    }),
    'mean CPU seconds per new session by program (to the answer / with the aftermath):',
    ...cpuPaths.map((path) => {
      const { toAnswer, withAftermath } = cpuOf(path).byProgram;
      const programs = Object.keys(withAftermath).sort(
        (a, b) => (withAftermath[b] ?? 0) - (withAftermath[a] ?? 0),
      );
      const each = programs.map(
        (program) =>
          `${program} ${(toAnswer[program] ?? 0).toFixed(3)}/${(withAftermath[program] ?? 0).toFixed(3)}`,
      );
      return `  ${path.padEnd(8)}  ${each.join(', ')}`;
    }),
    `=> CPU per new session gridgate ÷ direct: to the answer ${ratio(report.cpu.gridgate.toAnswer.median / report.cpu.direct.toAnswer.median)}, with the aftermath ${ratio(report.cpu.gridgate.withAftermath.median / report.cpu.direct.withAftermath.median)}`,
    ...(report.cpu.ggr
      ? [
          `=> CPU per new session gridgate ÷ ggr: to the answer ${ratio(report.cpu.gridgate.toAnswer.median / report.cpu.ggr.toAnswer.median)}, with the aftermath ${ratio(report.cpu.gridgate.withAftermath.median / report.cpu.ggr.withAftermath.median)}`,
        ]
      : []),
  ].join('\n');
}
