/**
 * A signer's own signature, as they adopt it on their page before signing: their name typed
 * (drawn in the handwriting fonts the sandbox ships) or drawn with a pointer, a pen or a
 * finger. It is kept with the signer (`signature`), shown back before they sign, drawn into
 * the signed copy at their place, and named in the audit trail and the certificate of
 * completion.
 *
 * A drawing travels as text: strokes separated by `;`, each a list of `x,y` points separated by
 * spaces, in whole units of a box SIGNATURE_BOX wide and high (the page's pad scales into it).
 */

export type Signature =
  | { kind: 'typed'; text: string }
  | {
      kind: 'drawn';
      /** Each stroke's points, flat: x0, y0, x1, y1, … within SIGNATURE_BOX. */
      strokes: number[][];
    };

/** The box a drawing is measured in (3 to 1, as a signature line). */
export const SIGNATURE_BOX = { width: 600, height: 200 } as const;

/** Bounds: a name, and a drawing a person makes in a few seconds, with room to spare. */
export const TYPED_MAX = 80;
const MAX_STROKES = 60;
const MAX_POINTS = 1500;

/** Why a signature given on a page is not one (a key of the pages' refusals). */
export type SignatureProblem = 'signature_empty' | 'signature_too_long' | 'signature_unreadable';

/** The name typed as a signature: trimmed, one line, at least one letter. */
export function typedSignature(value: string): Signature | SignatureProblem {
  const text = value.replace(/\s+/g, ' ').trim();
  if (!/\p{L}/u.test(text)) return 'signature_empty';
  if (Array.from(text).length > TYPED_MAX) return 'signature_too_long';
  // Control and bidi-override characters have no place in a name (the request rules refuse them in names too).
  if (/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(text)) return 'signature_unreadable';
  return { kind: 'typed', text };
}

/** A drawing from the pad's text; a problem when it is not one, is empty or is only a dot. */
export function drawnSignature(value: string): Signature | SignatureProblem {
  if (value.trim() === '') return 'signature_empty';
  const strokes: number[][] = [];
  let points = 0;
  for (const part of value.trim().split(';')) {
    const stroke: number[] = [];
    for (const point of part.trim().split(/\s+/)) {
      const xy = /^(\d{1,3}),(\d{1,3})$/.exec(point);
      if (!xy) return 'signature_unreadable';
      const [x, y] = [Number(xy[1]), Number(xy[2])];
      if (x > SIGNATURE_BOX.width || y > SIGNATURE_BOX.height) return 'signature_unreadable';
      stroke.push(x, y);
      points++;
    }
    strokes.push(stroke);
  }
  if (strokes.length > MAX_STROKES || points > MAX_POINTS) return 'signature_too_long';
  const xs = strokes.flatMap((s) => s.filter((_, i) => i % 2 === 0));
  const ys = strokes.flatMap((s) => s.filter((_, i) => i % 2 === 1));
  // A tap or two is no signature: it must reach across some of the box.
  if (Math.max(...xs) - Math.min(...xs) < 30 && Math.max(...ys) - Math.min(...ys) < 30)
    return 'signature_empty';
  return { kind: 'drawn', strokes };
}

/** The signature a signer adopted, if it is one (a record from the log is checked, not trusted). */
export function signatureOf(signer: Record<string, unknown>): Signature | undefined {
  const value = signer.signature as Partial<Signature> | undefined;
  if (value?.kind === 'typed' && typeof value.text === 'string') return { kind: 'typed', text: value.text };
  if (value?.kind === 'drawn' && Array.isArray(value.strokes))
    return {
      kind: 'drawn',
      strokes: value.strokes.filter(
        (s): s is number[] => Array.isArray(s) && s.every((n) => typeof n === 'number' && Number.isFinite(n)),
      ),
    };
  return undefined;
}

/** How the audit trail and the certificate name it: `typed signature "Layla Haddad"`, `drawn signature (3 strokes)`. */
export function describeSignature(signature: Signature): string {
  if (signature.kind === 'typed') return `typed signature "${signature.text}"`;
  const n = signature.strokes.length;
  return `drawn signature (${n} stroke${n === 1 ? '' : 's'})`;
}

/** The drawing as an SVG path in SIGNATURE_BOX units (`M x y L x y …`); a one-point stroke is a dot. */
export function signaturePath(strokes: readonly number[][]): string {
  return strokes
    .filter((stroke) => stroke.length >= 2)
    .map((stroke) => {
      const points: string[] = [];
      for (let i = 0; i + 1 < stroke.length; i += 2) points.push(`${stroke[i]} ${stroke[i + 1]}`);
      if (points.length === 1) points.push(points[0]!);
      return `M${points[0]!}${points
        .slice(1)
        .map((p) => ` L${p}`)
        .join('')}`;
    })
    .join(' ');
}
