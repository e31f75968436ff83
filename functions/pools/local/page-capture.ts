/**
 * Captures a local session's browser console (a text log) and network traffic (a HAR 1.2 file) over gridgate's
 * own DevTools connection to the browser, beside chromedriver's: the browser target auto-attaches every page
 * (and each page its out-of-process frames), and each is told to send its console (Runtime, Log) and network
 * (Network, Page for the HAR's pages) events. Console lines are written as they come; network events are
 * appended to a file as they come (nothing grows in memory with a long session) and made into the HAR when
 * the session ends, with chrome-har, which builds HAR entries from exactly these events. Both files are
 * bounded; past the bound the rest is dropped and the file says so. WebDriver BiDi's network module would
 * give requests but not the response timings a HAR holds, so this is DevTools.
 *
 * Commands never wait for any of this: the events reach gridgate on this connection only.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { CdpConnection, type CdpEvent } from './cdp-connection';
import { consoleLine } from './console-lines';

export interface CaptureSettings {
  /** DevTools host:port of the browser. */
  devtools: string;
  /** Where the console log is written, when the console is captured. */
  console?: string;
  /** Where the HAR is written at the end, when the network is captured (its events go to `${har}.events`). */
  har?: string;
  /** Most bytes of console text, and of network events, kept (each). */
  maxBytes?: number;
}

export interface FinishedCapture {
  /** Whether each file was written. */
  console: boolean;
  har: boolean;
}

// A session's console or network events past this are dropped: a HAR of more is more than a viewer opens.
const MAX_BYTES = 32 * 1024 * 1024;

// The events a HAR is built from (chrome-har reads Page.* for its pages and Network.* for its entries).
const HAR_EVENTS =
  /^(Network\.(requestWillBeSent|requestWillBeSentExtraInfo|responseReceived|responseReceivedExtraInfo|dataReceived|loadingFinished|loadingFailed|requestServedFromCache|resourceChangedPriority)|Page\.(frameStartedLoading|frameRequestedNavigation|navigatedWithinDocument|domContentEventFired|loadEventFired|frameAttached))$/;
const CONSOLE_EVENTS = new Set(['Runtime.consoleAPICalled', 'Runtime.exceptionThrown', 'Log.entryAdded']);

export class PageCapture {
  private cdp?: CdpConnection;
  private readonly consoleFile?: BoundedFile;
  private readonly eventsFile?: BoundedFile;
  private finishing?: Promise<FinishedCapture>;

  private constructor(private readonly settings: CaptureSettings) {
    const max = settings.maxBytes ?? MAX_BYTES;
    if (settings.console) {
      const note = `${new Date().toISOString()} warning gridgate console entries past ${max} bytes were dropped\n`;
      this.consoleFile = new BoundedFile(settings.console, max, note);
    }
    if (settings.har) this.eventsFile = new BoundedFile(eventsPath(settings.har), max);
  }

  /** Connects to the browser and starts capturing every page it has or opens; rejects if it cannot. */
  static async start(settings: CaptureSettings): Promise<PageCapture> {
    const capture = new PageCapture(settings);
    try {
      capture.cdp = await CdpConnection.open(settings.devtools, (event) => capture.onEvent(event));
      await capture.cdp.send('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: false,
        flatten: true,
      });
      return capture;
    } catch (error) {
      await capture.finish();
      throw new Error(`cannot capture the browser's console and network: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /**
   * Stops capturing, closes the console log and writes the HAR from the events captured. Safe to call more
   * than once, and after the browser is gone.
   */
  finish(): Promise<FinishedCapture> {
    this.finishing ??= (async () => {
      await this.cdp?.close();
      const [console, events] = await Promise.all([this.consoleFile?.close(), this.eventsFile?.close()]);
      const har = events !== undefined && this.settings.har !== undefined;
      if (har && this.settings.har) await writeHar(this.settings.har, events.cut ? events.limit : undefined);
      return { console: console !== undefined, har };
    })();
    return this.finishing;
  }

  private onEvent(event: CdpEvent): void {
    if (event.method === 'Target.attachedToTarget') {
      void this.watch(event.params).catch(() => undefined);
      return;
    }
    if (this.consoleFile && CONSOLE_EVENTS.has(event.method)) {
      const text = consoleLine(event.method, event.params);
      if (text) this.consoleFile.write(text);
    } else if (this.eventsFile && HAR_EVENTS.test(event.method)) {
      this.eventsFile.write(`${JSON.stringify({ method: event.method, params: event.params })}\n`);
    }
  }

  /** A page or frame attached: it sends the events asked for, and attaches its own out-of-process frames. */
  private async watch(params: Record<string, unknown>): Promise<void> {
    const cdp = this.cdp;
    const sessionId = String(params.sessionId);
    const type = (params.targetInfo as { type?: string } | undefined)?.type;
    if (!cdp || (type !== 'page' && type !== 'iframe')) return;
    const asked: Promise<unknown>[] = [];
    if (this.consoleFile) {
      asked.push(cdp.send('Runtime.enable', {}, sessionId), cdp.send('Log.enable', {}, sessionId));
    }
    if (this.eventsFile) {
      asked.push(cdp.send('Network.enable', {}, sessionId), cdp.send('Page.enable', {}, sessionId));
    }
    asked.push(
      cdp.send(
        'Target.setAutoAttach',
        { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
        sessionId,
      ),
    );
    // A page closing while it is being set up refuses the rest: nothing of it is left to capture.
    await Promise.allSettled(asked);
  }
}

/** Where the network events of a HAR wait for the session's end. */
export const eventsPath = (har: string) => `${har}.events`;

/**
 * Builds the HAR from its events file (then removed), also for a session whose gridgate was killed
 * (interrupted-recordings.ts); `cutAt`: the bound past which events were dropped. chrome-har is loaded with
 * the first HAR.
 */
export async function writeHar(har: string, cutAt?: number): Promise<void> {
  const { harFromMessages } = await import('chrome-har');
  const text = await readFile(eventsPath(har), 'utf8').catch(() => '');
  // A line cut short (a gridgate killed while writing it) is left out, not the whole HAR.
  const messages = text.split('\n').flatMap((line) => {
    try {
      return line === '' ? [] : [JSON.parse(line) as { method: string; params: Record<string, unknown> }];
    } catch {
      return [];
    }
  });
  const built = harFromMessages(messages, { includeTextFromResponseBody: false });
  const log = {
    ...built.log,
    creator: { name: 'gridgate', version: '1', comment: "from Chromium's DevTools events, by chrome-har" },
    ...(cutAt !== undefined ? { comment: `network events past ${cutAt} bytes were dropped` } : {}),
  };
  await writeFile(har, JSON.stringify({ log }), { mode: 0o600 });
  await rm(eventsPath(har), { force: true });
}

interface BoundedResult {
  bytes: number;
  cut: boolean;
  limit: number;
}

/** An append-only file that takes at most `limit` bytes, then (if given) a note that the rest was dropped. */
class BoundedFile {
  private readonly stream: WriteStream;
  private bytes = 0;
  private cut = false;

  constructor(
    path: string,
    private readonly limit: number,
    private readonly cutNote?: string,
  ) {
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    // A disk that fails loses the capture, never the session.
    this.stream.on('error', () => undefined);
  }

  write(text: string): void {
    if (this.cut || this.stream.destroyed) return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.limit) {
      this.cut = true;
      if (this.cutNote) this.stream.write(this.cutNote);
      return;
    }
    this.bytes += size;
    this.stream.write(text);
  }

  async close(): Promise<BoundedResult> {
    if (!this.stream.closed) {
      this.stream.end();
      await once(this.stream, 'close').catch(() => undefined);
    }
    return { bytes: this.bytes, cut: this.cut, limit: this.limit };
  }
}
