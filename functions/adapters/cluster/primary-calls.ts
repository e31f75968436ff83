/**
 * A worker's calls of the ports its primary holds, over the IPC channel: each call a numbered message,
 * settled by the primary's reply of that number. When the channel closes, every call still waiting fails.
 */
import { fromWire, type PortCall, type ToPrimary, type ToWorker } from './cluster-messages';

type Reply = Extract<ToWorker, { type: 'reply' }>;

export class PrimaryCalls {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private closed: Error | undefined;

  constructor(private readonly send: (message: ToPrimary) => void) {}

  call<T>(call: PortCall): Promise<T> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.send({ type: 'call', id, ...call });
    });
  }

  /** The primary's answer to one call. */
  settle(reply: Reply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if (reply.error) waiting.reject(fromWire(reply.error));
    else waiting.resolve(reply.value);
  }

  /** The channel closed (the primary is gone): no answer will come. */
  close(): void {
    this.closed = new Error("the server's primary process is gone");
    for (const waiting of this.waiting.values()) waiting.reject(this.closed);
    this.waiting.clear();
  }
}
