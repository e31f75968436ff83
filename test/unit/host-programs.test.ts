import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../../functions/core/config';
import { hostProgramRefusal } from '../../functions/core/host-programs';

const LOCAL = { kind: 'local', name: 'local', chromium: '/usr/bin/chromium' } as PoolConfig;
const ECS = { kind: 'ecs', name: 'fargate' } as PoolConfig;
const withOptions = (options: Record<string, unknown>) => ({ 'goog:chromeOptions': options });

describe('what a local pool refuses to start', () => {
  it('refuses every switch that runs a program, however it is spelled', () => {
    for (const arg of [
      '--renderer-cmd-prefix=/bin/sh -c "touch /tmp/x"',
      '--utility-cmd-prefix=xterm',
      '--gpu-launcher=/bin/sh',
      '--browser-subprocess-path=/tmp/evil',
      '--ppapi-plugin-launcher=gdb',
      '--plugin-launcher=gdb',
      '--zygote-cmd-prefix=strace',
      '--nacl-loader-cmd-prefix=x',
      '--nacl-gdb=/usr/bin/gdb',
      '--register-pepper-plugins=/tmp/lib.so;application/x-evil',
      '--ppapi-flash-path=/tmp/lib.so',
      '--mojo-core-library-path=/tmp/lib.so',
      '--some-future-cmd-prefix=x',
      '-renderer-cmd-prefix=/bin/sh',
      'renderer-cmd-prefix=/bin/sh',
      '--GPU-Launcher=/bin/sh',
    ]) {
      const refusal = hostProgramRefusal(withOptions({ args: ['--window-size=800,600', arg] }), LOCAL);
      expect(refusal, arg).toMatch(
        /^goog:chromeOptions\.args --[a-z-]+ would run a program on the grid's machine/,
      );
    }
  });

  it('refuses another binary and a DevTools address to attach to', () => {
    expect(hostProgramRefusal(withOptions({ binary: '/bin/sh' }), LOCAL)).toContain(
      'goog:chromeOptions.binary',
    );
    expect(hostProgramRefusal(withOptions({ debuggerAddress: '127.0.0.1:9222' }), LOCAL)).toContain(
      'debuggerAddress',
    );
  });

  it('starts what runs nothing: ordinary switches, the pool’s own binary, no options at all', () => {
    const ordinary = withOptions({
      args: ['--headless=new', '--window-size=1280,1024', '--lang=de', '--disable-features=Translate'],
      binary: '/usr/bin/chromium',
      extensions: [],
    });
    expect(hostProgramRefusal(ordinary, LOCAL)).toBeUndefined();
    expect(hostProgramRefusal({ browserName: 'chrome' }, LOCAL)).toBeUndefined();
  });

  it('leaves browsers that do not run on this machine to their own pools', () => {
    expect(
      hostProgramRefusal(withOptions({ args: ['--gpu-launcher=/bin/sh'], binary: '/x' }), ECS),
    ).toBeUndefined();
  });
});
