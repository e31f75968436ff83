/**
 * A network namespace that stands for a client's own machine: a loopback of its own (what the client serves
 * there, nothing else reaches), and the grid's port reached through pasta (`-T`: the namespace's
 * 127.0.0.1:<port> forwarded to this machine's), as a client elsewhere reaches a grid. Needs root and pasta,
 * as the local pools' namespaces do.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { stopGroup } from '../../functions/adapters/process/process-group';
import { until } from './until';

const run = promisify(execFile);

export interface ClientNamespace {
  /** A command line that runs `command` in the namespace. */
  command(command: string, args: readonly string[]): [string, string[]];
  close(): Promise<void>;
}

export async function openClientNamespace(gridPort: number): Promise<ClientNamespace> {
  const name = `gg-client-${process.pid}-${randomBytes(3).toString('hex')}`;
  await run('ip', ['netns', 'add', name]);
  await run('ip', ['netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up']);
  const child = spawn(
    'pasta',
    ['--runas', '0:0', '-q', '-f', '-4', '--config-net', '-t', 'none', '-u', 'none', '-U', 'none'].concat([
      '-T',
      String(gridPort),
      '--netns',
      name,
    ]),
    { detached: true, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    await stopGroup({ child, exited });
    await run('ip', ['netns', 'delete', name]).catch(() => undefined);
  };
  const inside = (command: string, args: readonly string[]): [string, string[]] => [
    'ip',
    ['netns', 'exec', name, command, ...args],
  ];
  try {
    await until(async () => {
      const [command, args] = inside(process.execPath, [
        '-e',
        `require('net').connect(${gridPort}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`,
      ]);
      return run(command, args).then(
        () => true,
        () => false,
      );
    }, 'the grid is reached from the client namespace');
  } catch (error) {
    await close();
    throw error;
  }
  return { command: inside, close };
}
