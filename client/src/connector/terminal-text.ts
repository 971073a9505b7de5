// What the connector tools print of text they did not write (task data, the service's answers, a command's output): its control characters shown as escapes, never obeyed by the terminal.

/**
 * C0 and C1 controls and DEL (escape sequences, bells, carriage returns that overwrite a line), and the marks that
 * reorder or break a line as shown: bidi controls and the line and paragraph separators.
 */
export function isControl(unit: number): boolean {
  if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f)) return true;
  return (
    unit === 0x061c ||
    unit === 0x200e ||
    unit === 0x200f ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    (unit >= 0x202a && unit <= 0x202e) ||
    (unit >= 0x2066 && unit <= 0x2069)
  );
}

/** The text with each character `shown` picks written as `\u001b` and so on; the text itself when none is. */
function escapeWhere(text: string, shown: (unit: number, index: number) => boolean): string {
  let out = '';
  let from = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (!shown(unit, index)) continue;
    out += `${text.slice(from, index)}\\u${unit.toString(16).padStart(4, '0')}`;
    from = index + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** One line of text, each control character shown as `\u001b` and so on: `ESC[31m` cannot colour, move or retitle anything. */
export function printable(text: string): string {
  return escapeWhere(text, isControl);
}

/**
 * A value as one JSON line with no control character in it raw. JSON.stringify escapes C0 controls itself; the rest
 * (DEL, C1, bidi marks, separators) are escaped the same way, which JSON reads back as the same characters.
 */
export function printableJson(value: unknown): string {
  return printable(JSON.stringify(value));
}

/** A piece of a command's output: its lines and tabs kept, every other control character shown. */
export function printableOutput(text: string): string {
  return escapeWhere(text, (unit, index) => {
    if (unit === 0x0a || unit === 0x09) return false;
    // A CR that ends a line (CRLF) is kept; one on its own would send the cursor back over the line.
    if (unit === 0x0d) return text.charCodeAt(index + 1) !== 0x0a;
    return isControl(unit);
  });
}
