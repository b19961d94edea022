/** Calendar days as the sandbox stores them (key expiry, envelope expiry). */
export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of an instant, in UTC. */
export const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
