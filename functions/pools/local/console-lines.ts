/**
 * A browser console as text, one entry a line, from the DevTools events that carry it: what the page's
 * scripts wrote (Runtime.consoleAPICalled), what they threw and nobody caught (Runtime.exceptionThrown), and
 * what the browser itself reports (Log.entryAdded: failed loads, blocked requests, interventions). Each line
 * is `<ISO time> <level> <source> <text>` with the script's place where the browser gives one; a text of
 * several lines continues on lines indented by two spaces, so every entry starts at a line's first column.
 */

/** The parts of a DevTools RemoteObject a console line shows. */
interface RemoteObject {
  type?: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
}

interface CallFrame {
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
}

// DevTools' console types, as the levels people filter by (console.warn's type is "warning").
const LEVELS: Record<string, string> = {
  error: 'error',
  assert: 'error',
  warning: 'warning',
  info: 'info',
  debug: 'debug',
  trace: 'debug',
};

/** The console line of a DevTools event, or undefined when the event is not a console entry. */
export function consoleLine(method: string, params: Record<string, unknown>): string | undefined {
  switch (method) {
    case 'Runtime.consoleAPICalled': {
      const type = String(params.type ?? 'log');
      const args = Array.isArray(params.args) ? (params.args as RemoteObject[]) : [];
      const frame = (params.stackTrace as { callFrames?: CallFrame[] } | undefined)?.callFrames?.[0];
      return line(
        params.timestamp,
        LEVELS[type] ?? 'log',
        `console.${type}`,
        args.map(describe).join(' '),
        frame,
      );
    }
    case 'Runtime.exceptionThrown': {
      const details = (params.exceptionDetails ?? {}) as CallFrame & {
        text?: string;
        exception?: RemoteObject;
      };
      const text = details.exception ? describe(details.exception) : (details.text ?? 'exception');
      return line(params.timestamp, 'error', 'exception', text, details);
    }
    case 'Log.entryAdded': {
      const entry = (params.entry ?? {}) as CallFrame & {
        source?: string;
        level?: string;
        text?: string;
        timestamp?: number;
      };
      const level = entry.level === 'verbose' ? 'debug' : (entry.level ?? 'info');
      return line(entry.timestamp, level, entry.source ?? 'other', entry.text ?? '', entry);
    }
    default:
      return undefined;
  }
}

function line(timestamp: unknown, level: string, source: string, text: string, where?: CallFrame): string {
  // DevTools' Runtime.Timestamp: milliseconds since the epoch.
  const at = typeof timestamp === 'number' ? new Date(timestamp) : new Date();
  const place = where?.url ? ` ${where.url}${position(where)}` : '';
  const body = text.replace(/\r?\n/g, '\n  ');
  return `${at.toISOString()} ${level} ${source}${place} ${body}\n`;
}

// DevTools counts lines and columns from 0; people and editors from 1.
function position({ lineNumber, columnNumber }: CallFrame): string {
  if (typeof lineNumber !== 'number') return '';
  return typeof columnNumber === 'number' ? `:${lineNumber + 1}:${columnNumber + 1}` : `:${lineNumber + 1}`;
}

/** A console argument as DevTools' console shows it in one line. */
function describe(value: RemoteObject): string {
  if (value.unserializableValue !== undefined) return value.unserializableValue;
  if (value.type === 'undefined') return 'undefined';
  if (value.subtype === 'null') return 'null';
  if (value.type === 'string') return String(value.value);
  if (value.value !== undefined && typeof value.value !== 'object') return String(value.value);
  return value.description ?? value.type ?? '';
}
