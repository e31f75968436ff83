import { describe, expect, it } from 'vitest';
import {
  methodChoice,
  REPLY,
  readGreeting,
  readRequest,
  reply,
  Socks5Error,
} from '../../functions/core/socks5-wire';

const connect = (type: number, address: number[], port: number) =>
  Buffer.from([5, 1, 0, type, ...address, port >> 8, port & 255]);

describe('SOCKS5 as a proxy reads it (RFC 1928)', () => {
  it('waits for a whole greeting, then accepts no authentication when offered', () => {
    expect(readGreeting(Buffer.from([5, 2, 0]))).toBeUndefined();
    const greeting = readGreeting(Buffer.from([5, 2, 2, 0, 9]));
    expect(greeting).toEqual({ methods: [2, 0], length: 4 });
    expect(methodChoice(greeting as NonNullable<typeof greeting>)).toEqual(Buffer.from([5, 0]));
  });

  it('refuses a client that offers only methods it does not speak', () => {
    expect(methodChoice({ methods: [2], length: 3 })).toEqual(Buffer.from([5, 0xff]));
  });

  it('reads a CONNECT to a domain name, an IPv4 and an IPv6 address', () => {
    const name = [...Buffer.from('localhost')];
    expect(readRequest(connect(3, [name.length, ...name], 3000))).toEqual({
      command: 1,
      host: 'localhost',
      port: 3000,
      length: 4 + 1 + name.length + 2,
    });
    expect(readRequest(connect(1, [127, 0, 0, 1], 80))?.host).toBe('127.0.0.1');
    expect(readRequest(connect(4, [...Array(15).fill(0), 1], 80))?.host).toBe('0:0:0:0:0:0:0:1');
  });

  it('waits for the whole request', () => {
    expect(readRequest(connect(1, [127, 0, 0, 1], 80).subarray(0, 8))).toBeUndefined();
  });

  it('refuses another protocol version and an address type SOCKS5 does not define', () => {
    expect(() => readGreeting(Buffer.from([4, 1, 0]))).toThrow(Socks5Error);
    expect(() => readRequest(connect(9, [1, 2, 3, 4], 80))).toThrow(Socks5Error);
  });

  it('answers with the code and an unspecified bound address', () => {
    expect(reply(REPLY.notAllowedByRuleset)).toEqual(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
  });
});
