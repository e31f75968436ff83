import { describe, expect, it } from 'vitest';
import { reachNotice } from '../../functions/entry/reach-notice';

const base = { port: 4444, usersFile: undefined, guest: 'guest', publicUrl: undefined, allowedHosts: [] };

describe('reachNotice', () => {
  it('says a default grid is for this machine only, and that everyone is the guest', () => {
    expect(reachNotice({ ...base, host: '127.0.0.1' })).toBe(
      'reachable from this machine only (listening on 127.0.0.1); no users file: everyone is the guest "guest", no password asked',
    );
  });

  it('warns that every network reaches a grid on 0.0.0.0 or ::', () => {
    for (const host of ['0.0.0.0', '::']) {
      expect(reachNotice({ ...base, host })).toMatch(
        new RegExp(
          `^reachable from every network this machine is on \\(listening on ${host}\\): whoever can reach the port can start browsers here; `,
        ),
      );
    }
  });

  it('names one address it listens on, and the sign-in rules of a users file', () => {
    expect(
      reachNotice({
        ...base,
        host: '10.0.0.5',
        usersFile: '/etc/gridgate/users',
        guest: null,
        publicUrl: 'https://grid.example.com',
      }),
    ).toBe(
      'reachable by whoever can reach 10.0.0.5 (listening on 10.0.0.5); only users of /etc/gridgate/users get in (guest off)',
    );
    expect(reachNotice({ ...base, host: '::1', usersFile: 'users.htpasswd' })).toBe(
      'reachable from this machine only (listening on ::1); users of users.htpasswd sign in; requests without credentials are the guest "guest"',
    );
    expect(reachNotice({ ...base, host: 'localhost', guest: null })).toBe(
      'reachable from this machine only (listening on localhost); nobody gets in (guest off and no users file)',
    );
  });

  it('says beyond loopback, with no name of the grid configured, that browsers at other names are refused', () => {
    const refusedByName =
      '; web pages (the status page too) may use it only at localhost or an IP address: browsers at any other name are refused until publicUrl or allowedHosts names it (DNS rebinding)';
    for (const host of ['0.0.0.0', '10.0.0.5']) {
      expect(reachNotice({ ...base, host }).endsWith(refusedByName), host).toBe(true);
    }
    expect(
      reachNotice({ ...base, host: '0.0.0.0', publicUrl: 'http://grid.example.com:4444' }),
    ).not.toContain('web pages');
    expect(reachNotice({ ...base, host: '0.0.0.0', allowedHosts: ['grid.internal'] })).not.toContain(
      'web pages',
    );
    expect(reachNotice({ ...base, host: '127.0.0.1' })).not.toContain('web pages');
  });
});
