/**
 * DNS rebinding, staged inside one process: a test's (rebinding.ts), or a
 * built CLI's through NODE_OPTIONS=--require with REBINDING_STAGE set to
 * {"name", "answers", "log"}.
 *
 * - Every lookup of `name` answers the next of `answers` in turn (127.0.0.1,
 *   then an address that is not local, then 127.0.0.1…): a name flipping
 *   between this machine and elsewhere, one lookup at a time.
 * - A tripwire on net's sockets sees every address a socket is handed to
 *   connect to (a literal host, or what the socket's lookup answered): each is
 *   counted, and any outside 127.0.0.0/8 fails the connection before it is
 *   made, so no packet leaves this machine even when the code under test would
 *   have connected there. `reached` counts those addresses.
 *
 * Plain CommonJS so that a spawned CLI can preload it as it is.
 */
'use strict';
const dns = require('node:dns');
const net = require('node:net');
const { writeFileSync } = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');

const loopback = (address) => /^(::ffff:)?127\./i.test(address) || address === '::1';

const tripped = (address) =>
  Object.assign(new Error(`connection to ${address} refused by the test's tripwire, before any packet`), {
    code: 'ETRIPWIRE',
  });

function stage({ name, answers, log }) {
  const counts = { lookups: 0, answered: {}, handed: {}, reached: {} };
  const save = () => log && writeFileSync(log, JSON.stringify(counts));
  const bump = (table, key) => (table[key] = (table[key] ?? 0) + 1);
  const realLookup = dns.lookup;
  const realConnect = net.Socket.prototype.connect;

  const realPromisesLookup = dns.promises.lookup;
  /** The next answer for the name. */
  const answer = () => {
    const address = answers[counts.lookups++ % answers.length];
    bump(counts.answered, address);
    save();
    return { address, family: net.isIP(address) };
  };
  dns.lookup = function lookup(hostname, options, callback) {
    if (typeof options === 'function') [callback, options] = [options, {}];
    if (typeof options === 'number') options = { family: options };
    if (hostname !== name) return realLookup.call(dns, hostname, options, callback);
    const { address, family } = answer();
    process.nextTick(() =>
      options?.all ? callback(null, [{ address, family }]) : callback(null, address, family),
    );
  };
  // The same name for a lookup made apart from a connection (a check before sending): the same turns.
  dns.promises.lookup = async function lookup(hostname, options) {
    if (hostname !== name) return realPromisesLookup.call(dns.promises, hostname, options);
    const entry = answer();
    return options?.all ? [entry] : entry;
  };

  /** Counts an address a socket is about to connect to; false when it must not be. */
  const allowed = (address) => {
    bump(counts.handed, address);
    if (!loopback(address)) bump(counts.reached, address);
    save();
    return loopback(address);
  };

  function watch(options) {
    const host = options.host ?? 'localhost';
    if (net.isIP(host)) {
      if (!allowed(host)) {
        // A name the socket must look up, with a lookup that fails: net never gets an address.
        options.host = 'tripwire.invalid';
        options.lookup = (_name, _options, callback) => process.nextTick(callback, tripped(host), []);
      }
      return;
    }
    const lookup = options.lookup ?? dns.lookup;
    options.lookup = (hostname, lookupOptions, callback) =>
      lookup(hostname, lookupOptions, (error, address, family) => {
        if (error) return callback(error, address, family);
        const list = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
        const refused = list.filter((entry) => !allowed(entry));
        if (refused.length > 0) return callback(tripped(refused[0]), lookupOptions?.all ? [] : undefined);
        callback(null, address, family);
      });
  }

  net.Socket.prototype.connect = function connect(...args) {
    // net.connect hands its normalized arguments over as an array; a direct call passes the options.
    const options = Array.isArray(args[0]) ? args[0][0] : args[0];
    if (options && typeof options === 'object' && options.path == null && options.port != null)
      watch(options);
    return realConnect.apply(this, args);
  };
  syncBuiltinESMExports();
  save();
  return {
    counts,
    restore() {
      dns.lookup = realLookup;
      dns.promises.lookup = realPromisesLookup;
      net.Socket.prototype.connect = realConnect;
      syncBuiltinESMExports();
    },
  };
}

module.exports = { stage };

if (process.env.REBINDING_STAGE) stage(JSON.parse(process.env.REBINDING_STAGE));
