/**
 * The Chrome DevTools Protocol commands that reach the browser's machine's file system, and what gridgate
 * asks of each on a local session's se:cdp socket (docs/security.md lists every domain looked through and
 * why the others are left alone). Method names are the protocol's, case and all: Chromium dispatches only
 * those exact names.
 */
import {
  type CommandRule,
  refusedDownloadFolder,
  refusedFileUrl,
  refusedPath,
  refusedPaths,
} from './host-path-rules';

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export const CDP_HOST_PATH_RULES: Readonly<Record<string, CommandRule>> = {
  // Where downloads go; the browser makes the folder and writes any file a page serves into it.
  'Browser.setDownloadBehavior': (params, context) =>
    refusedDownloadFolder(params, 'downloadPath', 'downloadPath', context),
  'Page.setDownloadBehavior': (params, context) =>
    refusedDownloadFolder(params, 'downloadPath', 'downloadPath', context),
  // Files the page gets to read: an upload's are in the session's folder (POST /se/file puts them there).
  'DOM.setFileInputFiles': (params, context) => refusedPaths(params.files, 'files', context),
  'Input.dispatchDragEvent': (params, context) =>
    refusedPaths(record(params.data).files, 'data.files', context),
  'PWA.launchFilesInApp': (params, context) => refusedPaths(params.files, 'files', context),
  // An extension's folder: its code runs with the extension's powers, read from that folder.
  'Extensions.loadUnpacked': (params, context) => refusedPath(params.path, 'path', context),
  // URLs the browser loads itself, outside any page: a file: one reads the machine's files.
  'PWA.install': (params, context) =>
    refusedFileUrl(params.installUrlOrBundleUrl, 'installUrlOrBundleUrl', context),
  'PWA.launch': (params, context) => refusedFileUrl(params.url, 'url', context),
  'Network.loadNetworkResource': (params, context) => refusedFileUrl(params.url, 'url', context),
  // A Perfetto config is a binary TraceConfig, which can name an output file; the JSON traceConfig cannot.
  'Tracing.start': async (params) =>
    params.perfettoConfig === undefined
      ? undefined
      : "perfettoConfig may name a file on the browser's machine; use traceConfig",
  // A channel this relay never sees: a page given the protocol (exposeDevToolsProtocol) or a DevTools window,
  // whose front end saves and reads files on the machine, would send commands past every check here.
  'Target.exposeDevToolsProtocol': async () => 'it gives a page a DevTools channel that bypasses gridgate',
  'Target.openDevTools': async () => "a DevTools window reads and writes files on the browser's machine",
};
