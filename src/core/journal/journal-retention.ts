/** Finished journals are kept this long after their last write, then pruned (files) or expire (Redis). */
export const JOURNAL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
