/** Logger that writes one JSON object per line, for people with jq and for CloudWatch Logs alike. */
import type { LogEvent, Logger } from '../../core/ports';

const WARNINGS = new Set<LogEvent>([
  'SESSION_FAILED',
  'SESSION_ID_REJECTED',
  'BROWSER_EXITED',
  'UPSTREAM_ERROR',
  'BACKGROUND_TASK_FAILED',
  'USERS_RELOAD_FAILED',
  'CONFIG_RELOAD_FAILED',
  'CONFIG_RESTART_NEEDED',
]);
const ERRORS = new Set<LogEvent>(['REQUEST_FAILED', 'BROWSER_STOP_FAILED']);

export class JsonLogger implements Logger {
  constructor(private readonly write: (line: string) => void = (line) => process.stdout.write(line)) {}

  log(event: LogEvent, fields: Record<string, unknown> = {}): void {
    const level = ERRORS.has(event) ? 'error' : WARNINGS.has(event) ? 'warn' : 'info';
    this.write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
  }
}
