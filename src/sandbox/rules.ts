/**
 * What this sandbox accepts where the published interface leaves the service
 * open (docs/service.md): the values of the open fields and the upper bounds
 * of a request (docs/assumptions.md). The request rules themselves come from
 * the shared core, so the CLI and the sandbox agree.
 */
import type { ValueLists } from '../core/envelope/envelope.js';
import type { FieldIssue } from '../core/errors.js';

/**
 * The values this sandbox accepts for the fields the published interface leaves open
 * (docs/service.md, Envelope; docs/assumptions.md).
 */
export const SANDBOX_VALUES: ValueLists = {
  signature_level: ['simple', 'advanced', 'qualified'],
  channel: ['email', 'whatsapp'],
  verification: ['uae_pass', 'nafath', 'sms_otp', 'email_otp'],
  locale: ['ar', 'en', 'fr', 'de', 'es', 'tr', 'ur', 'hi'],
};

/**
 * Limits the published interface leaves open (docs/service.md, Limits); the sandbox's choice
 * (docs/assumptions.md), enforced as the server.
 */
export const SANDBOX_LIMITS = { expires_in_days: 3650, signers: 100, title: 500 } as const;

/** The most characters of a void reason. */
export const VOID_REASON_MAX = 500;

export function sandboxBounds(body: unknown): FieldIssue[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  if (typeof b.expires_in_days === 'number' && b.expires_in_days > SANDBOX_LIMITS.expires_in_days) {
    issues.push({
      path: 'expires_in_days',
      message: `must be at most ${SANDBOX_LIMITS.expires_in_days} on this service`,
    });
  }
  if (Array.isArray(b.signers) && b.signers.length > SANDBOX_LIMITS.signers) {
    issues.push({ path: 'signers', message: `at most ${SANDBOX_LIMITS.signers} signers on this service` });
  }
  if (typeof b.title === 'string' && b.title.length > SANDBOX_LIMITS.title) {
    issues.push({ path: 'title', message: `at most ${SANDBOX_LIMITS.title} characters on this service` });
  }
  return issues;
}

/** SANDBOX_VALUES widened with the values a user accepted (`--accept`, the sandbox.accept setting). */
export function acceptedValues(extra: ValueLists = {}): ValueLists {
  const lists: Record<string, readonly string[]> = { ...SANDBOX_VALUES };
  for (const [field, values] of Object.entries(extra))
    lists[field] = [...new Set([...(lists[field] ?? []), ...(values ?? [])])];
  return lists;
}

/** The 422 for a value outside the lists says how to widen them, without editing code. */
export const widenHint = (field: string, value: string): string =>
  `this sandbox accepts more with \`sign-cli sandbox --accept ${field}=${value}\` or \`sign-cli config set sandbox.accept.${field} ${value}\``;
