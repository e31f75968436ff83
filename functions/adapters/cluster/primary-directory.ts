/**
 * The name of the directory a Node server's primary keeps its Unix socket in, followed by its pid: a start
 * after the primary was killed finds it by the dead pid and removes it (pools/local/orphan-sweep.ts).
 */
export const PRIMARY_DIRECTORY_PREFIX = 'gridgate-primary-';
