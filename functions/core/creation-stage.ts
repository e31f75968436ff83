/**
 * Where a new session is while it is being created, in order; the same names the `stage` metric dimension
 * uses. `queue`: waiting for a slot; `launch`: the browser's machine or process is starting; `pull`: its
 * image is downloading; `driver`: waiting for its WebDriver endpoint; `session`: the browser is opening.
 * No Node import here: the status page's browser-side code reads these names too.
 */
export type CreationStage = 'queue' | 'launch' | 'pull' | 'driver' | 'session';
/** The stages a launcher reports; new-session reports `queue` and `session` itself. */
export type LaunchStage = Extract<CreationStage, 'launch' | 'pull' | 'driver'>;
