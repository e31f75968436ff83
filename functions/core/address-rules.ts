/** The two shapes a browser's address may have: this machine's loopback, or a host:port inside CIDR blocks. */
import { BlockList, isIPv4 } from 'node:net';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost):\d{1,5}$/;

/** Whether the address is a port on this machine's loopback. */
export const onLoopback = (address: string): boolean => LOOPBACK.test(address);

/** An IPv4 host:port inside one of the CIDR blocks, on the given port. */
export function inNetworks(networks: string[], port: number, address: string): boolean {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(address);
  if (!match || Number(match[2]) !== port || !isIPv4(match[1] as string)) return false;
  return blockListOf(networks).check(match[1] as string, 'ipv4');
}

// Built once per networks array (configs are replaced whole on reload, never edited).
const blockLists = new WeakMap<string[], BlockList>();
function blockListOf(networks: string[]): BlockList {
  let list = blockLists.get(networks);
  if (!list) {
    list = new BlockList();
    for (const block of networks) {
      const [network, prefix] = block.split('/') as [string, string];
      list.addSubnet(network, Number(prefix), 'ipv4');
    }
    blockLists.set(networks, list);
  }
  return list;
}
