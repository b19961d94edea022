/**
 * Magic contact values, like a payment sandbox's test cards: they make a
 * signer take another path through the journey. Documented in the README.
 * The phones are in the North American range set aside for fiction
 * (555-0100 to 555-0199): valid numbers, as libphonenumber checks them,
 * that reach no one.
 *
 *   e-mail tag           phone            behaviour
 *   name+decline@…       +12025550101     declines to sign (envelope declined)
 *   name+verifyfail@…    +12025550102     fails identity verification (envelope failed; needs `verification`)
 *   name+noview@…        +12025550103     never opens it (envelope expires after expires_in_days)
 */
export type MagicBehaviour = 'decline' | 'fail_verification' | 'never_view' | undefined;

export const MAGIC_VALUES: ReadonlyArray<{
  tag: string;
  phone: string;
  behaviour: Exclude<MagicBehaviour, undefined>;
}> = [
  { tag: '+decline', phone: '+12025550101', behaviour: 'decline' },
  { tag: '+verifyfail', phone: '+12025550102', behaviour: 'fail_verification' },
  { tag: '+noview', phone: '+12025550103', behaviour: 'never_view' },
];

export function magicBehaviour(signer: { email?: unknown; phone?: unknown }): MagicBehaviour {
  const local = typeof signer.email === 'string' ? signer.email.split('@')[0]!.toLowerCase() : '';
  for (const magic of MAGIC_VALUES) {
    if (local.endsWith(magic.tag) || signer.phone === magic.phone) return magic.behaviour;
  }
  return undefined;
}
