/** Network failures described for people; no dependencies, so commands can use it without loading undici. */

/**
 * A network failure in one line a person can act on. OpenSSL's own text
 * (`80AC…:error:0A00010B:SSL routines:…:wrong version number:../deps/…`) says
 * little; the usual cause of a TLS failure is an https:// URL for a plain-HTTP
 * server, or a certificate problem, and the reason says which.
 */
export function describeNetworkError(code: string | undefined, message: string, url: string): string {
  const origin = new URL(url).origin;
  if (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    code === 'EPROTO' ||
    /wrong version number|packet length too long/i.test(message)
  ) {
    return `${code ?? 'EPROTO'}: ${origin} does not answer TLS; it looks like a plain-HTTP server (use http:// in the base URL)`;
  }
  if (code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ALTNAME/.test(code)) {
    // An issuer Node does not trust: usually a company's internal CA, or a proxy that inspects TLS.
    const unknownIssuer = /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code);
    const fix = unknownIssuer
      ? '; if the service (or a TLS-inspecting proxy) uses an internal CA, set NODE_EXTRA_CA_CERTS to its certificate (a PEM file)'
      : '';
    return `${code}: the TLS certificate of ${new URL(url).host} is not valid (${message.split('\n', 1)[0]!.trim().slice(0, 120)})${fix}`;
  }
  if (code?.startsWith('ERR_SSL_') || code?.startsWith('ERR_TLS_'))
    return `${code}: the TLS handshake with ${origin} failed`;
  return `${code ?? 'network error'}: ${message.split('\n', 1)[0]!.trim()}`;
}
