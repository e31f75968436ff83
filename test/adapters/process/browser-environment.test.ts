import { describe, expect, it } from 'vitest';
import { browserEnvironment, LAUNCHED_BY_ENV } from '../../../functions/adapters/process/browser-environment';

const GRIDGATES = {
  PATH: '/opt/node/bin:/usr/bin:/bin',
  HOME: '/root',
  TMPDIR: '/tmp',
  USER: 'root',
  GRIDGATE_SECRET: 'the key that signs session IDs',
  GRIDGATE_CONFIG: '/etc/gridgate.json',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'token',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/x',
  GITHUB_TOKEN: 'ghp_x',
  npm_config_registry: 'https://registry.npmjs.org/',
  NODE_OPTIONS: '--require /tmp/hook.js',
  LD_PRELOAD: '/tmp/evil.so',
  CHROME_LOG_FILE: '/root/.local/lib/python3.11/site-packages/x.pth',
  CHROMIUM_FLAGS: '--renderer-cmd-prefix=/bin/sh',
  LANG: 'de_DE.UTF-8',
  LC_ALL: 'de_DE.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TZ: 'Europe/Berlin',
  DISPLAY: ':99',
  XAUTHORITY: '/root/.Xauthority',
  FONTCONFIG_FILE: '/etc/fonts/fonts.conf',
};

describe('the environment of a session’s browser', () => {
  it('holds what a browser needs, HOME and TMPDIR in its own folder, and the launched-by mark', () => {
    expect(browserEnvironment('/tmp/gridgate-tmp-1-abc', GRIDGATES)).toEqual({
      PATH: '/opt/node/bin:/usr/bin:/bin',
      HOME: '/tmp/gridgate-tmp-1-abc',
      TMPDIR: '/tmp/gridgate-tmp-1-abc',
      LANG: 'de_DE.UTF-8',
      LC_ALL: 'de_DE.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Europe/Berlin',
      DISPLAY: ':99',
      XAUTHORITY: '/root/.Xauthority',
      FONTCONFIG_FILE: '/etc/fonts/fonts.conf',
      [LAUNCHED_BY_ENV]: String(process.pid),
    });
  });

  it('holds no secret, credential, token, preload or log file of gridgate’s', () => {
    const names = Object.keys(browserEnvironment('/tmp/x', GRIDGATES));
    expect(
      names.filter((name) => /GRIDGATE_(?!LAUNCHED_BY)|AWS|TOKEN|npm_|NODE_|LD_|CHROM|USER/.test(name)),
    ).toEqual([]);
  });

  it('finds programs on the usual PATH when gridgate has none, and for ffmpeg sets no folder', () => {
    expect(browserEnvironment(undefined, {})).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      [LAUNCHED_BY_ENV]: String(process.pid),
    });
  });
});
