/** Reads a gridgate config file as JSON; the router and the CDK app read the same file the same way. */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/config';

export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, [`cannot read the file: ${(error as Error).message}`]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, [`not valid JSON: ${(error as Error).message}`]);
  }
}
