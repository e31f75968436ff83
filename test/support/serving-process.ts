/**
 * Which process serves a TCP connection, as the kernel says (Linux /proc): the one whose open files
 * hold the server's end of it. Lets a test talk to one chosen worker process of a server, on a kept-alive
 * connection, without the server saying anything about itself.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, type IncomingMessage, request } from 'node:http';

/** The socket inode of the server's end of the connection from `clientPort` to `serverPort`, on loopback. */
function serverSocketInode(serverPort: number, clientPort: number): string | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, remote, inode] = [fields[1], fields[2], fields[9]];
      if (local?.endsWith(`:${hex(serverPort)}`) && remote?.endsWith(`:${hex(clientPort)}`)) return inode;
    }
  }
  return undefined;
}

/** Which of `pids` holds the server's end of that connection, if any. */
export function servingPid(pids: number[], serverPort: number, clientPort: number): number | undefined {
  const inode = serverSocketInode(serverPort, clientPort);
  if (!inode) return undefined;
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
        } catch {
          return false; // closed meanwhile
        }
      });
    } catch {
      return false; // that process is gone
    }
  });
}

export interface Answer {
  status: number;
  body: string;
}

/** One kept-alive connection to a server: every request goes over the same socket, to the same process. */
export class OneConnection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** The client's port, once the first request connected. */
  localPort: number | undefined;

  constructor(private readonly url: string) {}

  send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        {
          method,
          agent: this.agent,
          headers: { ...(text ? { 'content-type': 'application/json' } : {}), ...headers },
        },
        (res: IncomingMessage) => {
          let answer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            answer += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: answer }));
          res.on('error', reject);
        },
      );
      req.on('socket', (socket) => {
        const note = () => {
          this.localPort = socket.localPort;
        };
        if (socket.localPort) note();
        else socket.once('connect', note);
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
