/**
 * A raw CDP or BiDi client for tests: it sends a command with the next id and resolves with the answer of
 * that id (events are kept aside), so a test sees exactly what the server answered, error shape and all.
 */
import WebSocket from 'ws';

export interface ProtocolSocket {
  /** Sends `{id, ...command}` and resolves with the message answering that id. */
  send(command: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends a message as it is (text), for messages that carry no usable id. */
  sendRaw(text: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function openProtocolSocket(url: string): Promise<ProtocolSocket> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 0;
  const waiting = new Map<unknown, (answer: Record<string, unknown>) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    // An answer has an id (null for one to a message without a usable id); events have none.
    if (!('id' in message)) return;
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const answerTo = (id: unknown) =>
    new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
  return {
    send(command) {
      const id = ++nextId;
      const answer = answerTo(id);
      socket.send(JSON.stringify({ id, ...command }));
      return answer;
    },
    sendRaw(text) {
      const answer = answerTo(null);
      socket.send(text);
      return answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      }),
  };
}
