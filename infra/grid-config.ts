/** Reads the gridgate config file the stack is built from and validates it with the router's own schema. */
import { type Config, ConfigError, parseConfig } from '../functions/core/config';
import { readConfigFile } from '../functions/entry/config-file';

// The router names the built-in catalog after the installed Chromium; a cloud build has none to ask.
const DEFAULTS = { builtInBrowserVersion: 'stable' };

/** `path` is the CDK context value `config` (`-c config=gridgate.json`); without it, the built-in defaults. */
export function readGridConfig(path: unknown): Config {
  if (path === undefined) return parseConfig({}, DEFAULTS, 'built-in defaults');
  if (typeof path !== 'string' || path === '') {
    throw new ConfigError('CDK context "config"', ['must be the path of a gridgate config file']);
  }
  return parseConfig(readConfigFile(path), DEFAULTS, path);
}
