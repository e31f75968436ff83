/**
 * A worker's password checks, admitted and run by its primary: each worker still reads the users file
 * and remembers answers itself, but a check it must make is the primary's, so the bounds on one client's
 * sign-ins under way (password-check-queue.ts) are counted once for the whole server. Checked in each
 * worker, a client spreading wrong passwords over connections would get as many checks as there are workers.
 */
import type { PasswordChecks } from '../htpasswd/password-check-queue';
import type { PrimaryCalls } from './primary-calls';

export class PrimaryPasswordChecks implements PasswordChecks {
  constructor(private readonly calls: PrimaryCalls) {}

  check(client: string, password: string, hash: string): Promise<boolean> {
    return this.calls.call({ port: 'passwords', method: 'check', args: [client, password, hash] });
  }
}
