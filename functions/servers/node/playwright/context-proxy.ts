/**
 * The proxy of every browser context a Playwright server makes for a client that exposes its network: its
 * `Target.createBrowserContext` (how Playwright makes each context on Chromium) on the way to the browser
 * gets the session's proxy (browser-proxy.ts) and the bypass rules that keep all but the exposed hosts the
 * browser's own. A context the client gives a proxy of its own keeps it: its traffic is not the tunnel's.
 * Not a boundary: a context without the proxy only reaches what the browser reaches anyway.
 */
import type { Verdict } from '../../../core/socket-command-check';
import type { ClientMessageCheck } from '../socket-relay';

const CREATE_CONTEXT = 'Target.createBrowserContext';

interface CdpCommand {
  method?: string;
  params?: { proxyServer?: string; proxyBypassList?: string };
}

export function contextProxy(proxyServer: string, proxyBypassList: string): ClientMessageCheck {
  return {
    mayCheck: (message) => message.includes(CREATE_CONTEXT, 0, 'latin1'),
    async decide(message): Promise<Verdict> {
      const text = message.toString('utf8');
      const command = JSON.parse(text) as CdpCommand;
      if (command.method !== CREATE_CONTEXT || command.params?.proxyServer !== undefined)
        return { forward: text };
      return {
        forward: JSON.stringify({ ...command, params: { ...command.params, proxyServer, proxyBypassList } }),
      };
    },
  };
}
