/**
 * Magic contact values, like a payment sandbox's test cards: they make a
 * signer take another path through the journey. Documented in the README.
 *
 *   e-mail tag           phone            behaviour
 *   name+decline@…       +15550000001     declines to sign (envelope declined)
 *   name+verifyfail@…    +15550000002     fails identity verification (envelope failed; needs `verification`)
 *   name+noview@…        +15550000003     never opens it (envelope expires after expires_in_days)
 */
export type MagicBehaviour = 'decline' | 'fail_verification' | 'never_view' | undefined;

export const MAGIC_VALUES: ReadonlyArray<{ tag: string; phone: string; behaviour: Exclude<MagicBehaviour, undefined> }> = [
  { tag: '+decline', phone: '+15550000001', behaviour: 'decline' },
  { tag: '+verifyfail', phone: '+15550000002', behaviour: 'fail_verification' },
  { tag: '+noview', phone: '+15550000003', behaviour: 'never_view' },
];

export function magicBehaviour(signer: { email?: unknown; phone?: unknown }): MagicBehaviour {
  const local = typeof signer.email === 'string' ? signer.email.split('@')[0]!.toLowerCase() : '';
  for (const magic of MAGIC_VALUES) {
    if (local.endsWith(magic.tag) || signer.phone === magic.phone) return magic.behaviour;
  }
  return undefined;
}
