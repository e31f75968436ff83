/**
 * How long the browsers' log group keeps ecs sessions' logs, which `GET /logs/{id}.log` serves after their
 * sessions ended: by default two weeks, or longer when the config's `recording.retention` asks for more.
 * CloudWatch Logs drops each event once it is older than the group's retention, counted from the event,
 * so a session's first line must outlive its whole session (at most `timeouts.maxAge`) and the retention.
 */
import { Annotations, Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Config } from '../functions/core/config';

/** The retentions CloudWatch Logs offers, in days (PutRetentionPolicy, retentionInDays), shortest first. */
const OFFERED_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];
const DEFAULT_DAYS = 14;
const DAY_MS = 86_400_000;

/** Days an ecs session's log must be kept from its first line for the config's recording retention. */
function daysNeeded(config: Config): number {
  return Math.ceil((config.timeouts.maxAge + config.recording.retention) / DAY_MS);
}

/** The shortest retention offered that keeps every log for `recording.retention`, and two weeks at least. */
export function browserLogRetention(config: Config): RetentionDays {
  const needed = Math.max(DEFAULT_DAYS, daysNeeded(config));
  const days = OFFERED_DAYS.find((offered) => offered >= needed);
  return days === undefined ? RetentionDays.INFINITE : (days as RetentionDays);
}

/** A retention given to the stack that is shorter than the config's recording retention: said at synth. */
export function warnOfShortLogRetention(scope: Construct, config: Config, given: RetentionDays): void {
  if (given === RetentionDays.INFINITE || given >= daysNeeded(config)) return;
  Annotations.of(scope).addWarningV2(
    'gridgate:browserLogRetentionShort',
    `browsers.logRetention (${given} days) keeps ecs sessions' logs less than recording.retention (${Duration.millis(config.recording.retention).toHumanString()}) after a session of up to timeouts.maxAge; GET /logs/ answers 404 for them sooner`,
  );
}
