/**
 * The one way sign-cli's pages (the sandbox's, the webhook inspector's) write HTML: the `html`
 * tag. Every value put into a template is escaped, unless it is markup this tag made; so text
 * from an envelope, a signer, a delivery, a form or a URL never becomes markup, and no call at a
 * value can be forgotten.
 *
 *   html`<p class="who">${name}</p>`  // name `<b>` is shown as `<b>`, not bold
 */

/** HTML made by the `html` tag: put into another template as it is. */
export class Markup {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a template takes: markup, text or a number (escaped), nothing (`''`), or a list of them. */
export type HtmlValue = Markup | string | number | false | null | undefined | readonly HtmlValue[];

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Markup {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += render(value) + strings[i + 1]!;
  });
  return new Markup(text);
}

function render(value: HtmlValue): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === false || value === null || value === undefined) return '';
  return escapeHtml(String(value));
}

/**
 * Text for HTML: control characters and the bidi controls that could reorder
 * a page (U+202A-U+202E, U+2066-U+2069) shown as visible `\u202e` escapes,
 * then the five HTML specials as entities. Safe in text and in quoted
 * attributes.
 */
function escapeHtml(text: string): string {
  return visibleControls(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Control characters and bidi embeddings, overrides and isolates as visible escapes. Unlike a
 * terminal line (core/envelope/text.ts), a page keeps the zero-width joiner and non-joiner and the bidi
 * marks: names are written with them (Persian, Arabic), and a page renders them as meant.
 */
export const visibleControls = (text: string): string =>
  text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** A record's field as text: strings as they are, nothing as nothing, anything else as JSON. */
export const plain = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);

/** A record's field as one line of text: line breaks as spaces. */
export const oneLine = (value: unknown): string => plain(value).replace(/[\r\n]+/g, ' ');
