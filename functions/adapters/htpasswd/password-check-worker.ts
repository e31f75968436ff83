/**
 * The thread a password check runs on (password-workers.ts starts it): answers each `{id, password, hash}`
 * with `{id, ok}`, one at a time, so bcrypt's deliberate ~100 ms of work never holds up the server's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { verifyPassword } from './password-hash';

export interface PasswordCheckRequest {
  id: number;
  password: string;
  hash: string;
}

export interface PasswordCheckAnswer {
  id: number;
  ok: boolean;
}

const port = parentPort;
if (port) {
  port.on('message', ({ id, password, hash }: PasswordCheckRequest) => {
    const answer = (ok: boolean) => port.postMessage({ id, ok } satisfies PasswordCheckAnswer);
    // A check that breaks (it should not: hashes are validated when the file loads) lets nobody in.
    verifyPassword(password, hash).then(answer, () => answer(false));
  });
}
