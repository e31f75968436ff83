/**
 * Reads the command line of the Chromium each path drives, so the report can show that both
 * browsers run with the same flags (only the profile directory and the DevTools port's value differ).
 */
import { basename } from 'node:path';
import { commandLine, descendants } from './process-tree';

/**
 * Arguments of the Chromium browser process below `root`, sorted, without the per-session profile and with the
 * DevTools port's value left out: 0 (Chromium picks one) on a bare chromedriver, a fixed one in gridgate's
 * namespaces, the port pasta forwards into it. The switch itself stays compared.
 */
export function chromiumFlags(root: number): string[] {
  const browsers = descendants(root)
    .map(commandLine)
    // The browser process is the one Chromium process that is not a --type=renderer/gpu/utility helper.
    .filter((args) => basename(args[0] ?? '') === 'chromium' && !args.some((a) => a.startsWith('--type=')));
  if (browsers.length !== 1)
    throw new Error(`expected one Chromium below pid ${root}, found ${browsers.length}`);
  return (browsers[0] as string[])
    .slice(1)
    .filter((arg) => !arg.startsWith('--user-data-dir='))
    .map((arg) => (arg.startsWith('--remote-debugging-port=') ? '--remote-debugging-port' : arg))
    .sort();
}

export interface FlagComparison {
  identical: boolean;
  direct: string[];
  gridgate: string[];
}

export function compareFlags(directRoot: number, gridgateRoot: number): FlagComparison {
  const direct = chromiumFlags(directRoot);
  const gridgate = chromiumFlags(gridgateRoot);
  const identical = direct.length === gridgate.length && direct.every((flag, i) => flag === gridgate[i]);
  return { identical, direct, gridgate };
}
