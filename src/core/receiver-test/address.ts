/**
 * Where `webhooks test` may send without being told: this machine (loopback)
 * or a private network. It sends forged deliveries on purpose, so any other
 * host needs the caller's explicit consent.
 */
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

const LOCAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 32], // reaches this machine on Linux
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  LOCAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::1', 128],
  ['fc00::', 7], // unique local
] as const)
  LOCAL.addSubnet(net, prefix, 'ipv6');

/**
 * Loopback or private: an address of this machine or its network. Not
 * link-local: 169.254.169.254 is a cloud's metadata service, no receiver.
 */
export function isLocalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return LOCAL.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  return family === 4 ? LOCAL.check(address, 'ipv4') : family === 6 ? LOCAL.check(address, 'ipv6') : false;
}

export interface ReceiverHost {
  host: string;
  addresses: string[];
  /** Every address is local: sending needs no consent. */
  local: boolean;
}

/** The URL's host and what it resolves to now. */
export async function resolveReceiverHost(url: URL): Promise<ReceiverHost> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  return { host, addresses, local: addresses.length > 0 && addresses.every(isLocalAddress) };
}
