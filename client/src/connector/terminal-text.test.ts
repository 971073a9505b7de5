// Text the connector tools did not write, as they print it: no control character reaches the terminal raw.
import { describe, expect, it } from 'vitest';
import { isControl, printable, printableJson, printableOutput } from './terminal-text.ts';

const rawControls = (text: string) => [...text].filter((char) => isControl(char.charCodeAt(0)));

const hostile = 'SKU\u001b]0;owned\u0007\u001b[31mRED\u009b2J\u202eevil\r\n\tend\u2028';

describe('text shown to an operator', () => {
  it('shows every control character of a line as an escape: ESC, BEL, CSI, bidi marks, CR, LF, tab and separators', () => {
    expect(printable(hostile)).toBe('SKU\\u001b]0;owned\\u0007\\u001b[31mRED\\u009b2J\\u202eevil\\u000d\\u000a\\u0009end\\u2028');
    expect(printable('BOLT-10 ok é 🙂')).toBe('BOLT-10 ok é 🙂');
  });

  it('prints JSON with no raw control character in it, which reads back as the same value', () => {
    const event = { type: 'task', sku: hostile };
    const line = printableJson(event);
    expect(rawControls(line)).toEqual([]);
    expect(JSON.parse(line)).toEqual(event);
  });

  it("keeps a command's line ends and tabs, and shows its other control characters", () => {
    expect(printableOutput('a\tb\r\nc\n\u001b[2Jd\re')).toBe('a\tb\r\nc\n\\u001b[2Jd\\u000de');
  });
});
