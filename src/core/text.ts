/**
 * Text from input, a server or a delivery, made safe to show a person: no raw
 * control character reaches the terminal (an ESC could retitle the window,
 * move the cursor or hide text; a C1 CSI does the same on some terminals),
 * and a message stays on one line.
 */

/** C0 controls except tab and line feed, DEL, and the C1 range. */
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The same, plus the SGR colour sequences sign-cli itself writes (kept when `keepColour`). */
const CONTROL_OR_SGR_RE = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const escapeChar = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Every control character as a visible `\u001b`-style escape (also valid inside
 * a JSON string, so JSON output stays parseable). With `keepColour`, SGR colour
 * sequences pass (they only colour text); any other escape sequence is shown.
 */
export function escapeControl(text: string, keepColour = false): string {
  if (!keepColour) {
    CONTROL_RE.lastIndex = 0;
    return CONTROL_RE.test(text) ? text.replace(CONTROL_RE, escapeChar) : text;
  }
  return text.replace(CONTROL_OR_SGR_RE, (match) => (match.length > 1 ? match : escapeChar(match)));
}

/** Line breaks as a visible `\n`, so a message from elsewhere cannot span lines or fake a line of ours. */
export function oneLine(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.replace(/\r\n|\r|\n/g, '\\n') : text;
}
