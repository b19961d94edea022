/**
 * A signature as the pages show it: a typed one in the handwriting fonts (the stylesheet's
 * `Sandbox Signature`, the files the signed copy draws it with), a drawn one as an SVG path in
 * the drawing's own box; drawn with presentation attributes only, as the pages' CSP wants.
 */
import { SIGNATURE_BOX, signaturePath, type Signature } from '../documents/signature.js';
import { html, type Markup } from '../../core/web/html.js';

export function signatureMarkup(signature: Signature, label: string): Markup {
  if (signature.kind === 'typed')
    return html`<p class="signature-typed" dir="auto" role="img" aria-label="${label}">${signature.text}</p>`;
  return html`<svg
    class="signature-drawn"
    xmlns="http://www.w3.org/2000/svg"
    viewBox="0 0 ${SIGNATURE_BOX.width} ${SIGNATURE_BOX.height}"
    role="img"
    aria-label="${label}"
  >
    <path
      d="${signaturePath(signature.strokes)}"
      fill="none"
      stroke="#1b2a6b"
      stroke-width="5"
      stroke-linecap="round"
      stroke-linejoin="round"
    />
  </svg>`;
}
