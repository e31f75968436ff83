/** One raw HTTP exchange on a loopback connection, for what a client library would never send. */
import { connect } from 'node:net';

/** Writes `raw` on one connection and reads until the server closes it. */
export function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
