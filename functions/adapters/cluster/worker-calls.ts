/**
 * The primary's side of its workers' calls: each is carried out on the primary's own ports (its store,
 * its launchers, its password checks), so the whole server has one slot ledger, one owner of every
 * browser and one count of each client's sign-ins under way.
 */
import type { GridDeps } from '../../core/grid-deps';
import type { SessionStore, StopContext } from '../../core/ports';
import type { PasswordChecks } from '../htpasswd/password-check-queue';
import { type PortCall, STORE_CALLS, type Touch } from './cluster-messages';

const STORE_METHODS: ReadonlySet<string> = new Set(STORE_CALLS);

/** `passwords`: the primary's password checks, when it has a users file. */
export async function answerPortCall(
  deps: GridDeps,
  call: PortCall,
  passwords?: PasswordChecks,
): Promise<unknown> {
  if (call.port === 'passwords') {
    if (!passwords || call.method !== 'check') throw new Error('no users file to check a password against');
    return passwords.check(...call.args);
  }
  if (call.port === 'launcher') {
    const launcher = deps.runtimes[call.poolKind]?.launcher;
    if (!launcher || call.method !== 'stop')
      throw new Error(`no ${call.poolKind} launcher to stop a browser`);
    const [handle, context] = call.args as [string, StopContext];
    return launcher.stop(handle, context);
  }
  if (!STORE_METHODS.has(call.method)) throw new Error(`no store call ${String(call.method)}`);
  const method = deps.sessions[call.method] as (...args: unknown[]) => Promise<unknown>;
  const value = await method.apply(deps.sessions, call.args);
  // A slot a worker freed may let a queued request in: the queue waits here, in the primary.
  if (call.method === 'release') deps.queue.notify();
  return value;
}

/** A worker's batch of activity, into the store as if each command had been touched here. */
export function applyActivity(sessions: SessionStore, touches: Touch[]): void {
  for (const [key, at, commands, method, path] of touches) {
    if (commands === 0 || method === undefined || path === undefined) {
      sessions.touch(key, at);
      continue;
    }
    for (let i = 0; i < commands; i++) sessions.touch(key, at, method, path);
  }
}
