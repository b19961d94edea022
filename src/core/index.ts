/** sign-cli as a library: `import { SignClient, validateEnvelope } from 'sign-cli'`. */
export * from './errors.js';
export * from './envelope.js';
export * from './endpoints.js';
export * from './client.js';
export * from './pacing.js';
export * from './retry.js';
export * from './idempotency.js';
export * from './keys.js';
export { systemClock, type Clock } from './clock.js';
export { VERSION, USER_AGENT } from './version.js';
export * from './json-source.js';
export * from './audit.js';
export * from './webhooks.js';
export { canonicalJson } from './canonical-json.js';
export * from './events.js';
export * from './bulk.js';
export * from './journal.js';
export { LockedError } from './pid-lock.js';
