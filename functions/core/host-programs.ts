/**
 * What a client may not ask of a Chromium that runs on gridgate's own machine (DESIGN invariant 7):
 * anything that makes Chromium or chromedriver start a program the client names. A local pool's
 * browser runs as gridgate's user, so `--renderer-cmd-prefix=/bin/sh -c …` would be a shell for whoever
 * can start a session. Browsers in containers (ecs, eks pools) and behind hubs are not this machine's.
 */
import { type Capabilities, isObject } from './capabilities';
import type { PoolConfig } from './config';

/**
 * Chromium switches whose value is a program (or a library) it runs or loads, by their name without
 * dashes. From Chromium's content_switches.cc and chrome_switches.cc: the launch-prefix family
 * (`*-cmd-prefix`, `*-launcher`) wraps every child process of its type in the given command.
 */
const PROGRAM_SWITCHES = new Set([
  'browser-subprocess-path', // the executable started for every child process
  'renderer-cmd-prefix',
  'utility-cmd-prefix',
  'gpu-launcher',
  'zygote-cmd-prefix',
  'ppapi-plugin-launcher',
  'plugin-launcher',
  'nacl-loader-cmd-prefix',
  'nacl-gdb', // a debugger started for NaCl modules
  'nacl-gdb-script',
  'ppapi-flash-path', // shared libraries loaded into a plugin process
  'register-pepper-plugins',
  'mojo-core-library-path',
]);
// Kin added in later Chromium versions follow the same names.
const PROGRAM_SWITCH_SHAPES = [/-cmd-prefix$/, /-launcher$/, /-subprocess-path$/];

/**
 * Why these capabilities may not start a browser in this pool, or undefined when they may. Only local
 * pools are judged: their Chromium, its binary and its switches are this machine's.
 */
export function hostProgramRefusal(capabilities: Capabilities, pool: PoolConfig): string | undefined {
  if (pool.kind !== 'local') return undefined;
  const options = capabilities['goog:chromeOptions'];
  if (!isObject(options)) return undefined;
  if (options.binary !== undefined && options.binary !== pool.chromium) {
    return `goog:chromeOptions.binary would run another program on the grid's machine; pool ${pool.name} runs its own Chromium only`;
  }
  // A client-chosen DevTools address would attach chromedriver to another browser on this machine,
  // another user's session or a warm browser among them.
  if (options.debuggerAddress !== undefined) {
    return `goog:chromeOptions.debuggerAddress is not allowed in pool ${pool.name}: it would attach to another browser on the grid's machine`;
  }
  const args = Array.isArray(options.args) ? options.args : [];
  const named = args.find((arg) => typeof arg === 'string' && runsProgram(arg));
  if (typeof named === 'string') {
    return `goog:chromeOptions.args ${switchName(named)} would run a program on the grid's machine; pool ${pool.name} refuses it`;
  }
  return undefined;
}

/**
 * "--renderer-cmd-prefix=…" → "--renderer-cmd-prefix". Chromium takes "-" and "--" as switch prefixes
 * on Linux and chromedriver adds "--" to an argument without one, so every spelling is caught.
 */
function switchName(arg: string): string {
  return `--${bareName(arg)}`;
}

function bareName(arg: string): string {
  return (arg.split('=', 1)[0] as string).trim().replace(/^-+/, '').toLowerCase();
}

function runsProgram(arg: string): boolean {
  const name = bareName(arg);
  return PROGRAM_SWITCHES.has(name) || PROGRAM_SWITCH_SHAPES.some((shape) => shape.test(name));
}
