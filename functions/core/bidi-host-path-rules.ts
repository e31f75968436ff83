/**
 * The WebDriver BiDi commands that reach the browser's machine's file system, and what gridgate asks of each
 * on a local session's webSocketUrl socket (docs/security.md lists every module looked through). chromedriver's
 * `goog:cdp.sendCommand` (and its older name `cdp.sendCommand`) carries any CDP command, so those are held to
 * the CDP rules (socket-command-check.ts).
 */
import { type CommandRule, refusedDownloadFolder, refusedPath, refusedPaths } from './host-path-rules';

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export const BIDI_HOST_PATH_RULES: Readonly<Record<string, CommandRule>> = {
  // WebDriver BiDi §7.1.3.x browser.setDownloadBehavior: {type: "allowed", destinationFolder} | {type: "denied"} | null.
  'browser.setDownloadBehavior': (params, context) =>
    refusedDownloadFolder(
      record(params.downloadBehavior),
      'destinationFolder',
      'downloadBehavior.destinationFolder',
      context,
    ),
  // input.setFiles: the files a file input gets, read from the machine.
  'input.setFiles': (params, context) => refusedPaths(params.files, 'files', context),
  // webExtension.install: a folder or an archive on the machine; base64 data names no path.
  'webExtension.install': async (params, context) => {
    const data = record(params.extensionData);
    return data.type === 'path' || data.type === 'archivePath'
      ? refusedPath(data.path, 'extensionData.path', context)
      : undefined;
  },
};

/** The BiDi commands of chromedriver's that carry a CDP command as {method, params, session}. */
export const BIDI_CDP_CARRIERS: ReadonlySet<string> = new Set(['goog:cdp.sendCommand', 'cdp.sendCommand']);
