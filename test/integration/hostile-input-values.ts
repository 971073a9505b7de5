// Hostile values for the hostile-input suite: JSON text with numbers JSON.stringify cannot write, nesting built as text,
// long and unusual strings, wrong values for each kind of field, and fast-check samples drawn with a fixed seed.
import fc from 'fast-check';

/** Every sample of the suite is drawn from this seed (plus a salt per use), so each run sends the same requests. */
export const SEED = 20_260_601;

/** `numRuns` values of an arbitrary, the same every run. */
export function samples<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, salt: number): T[] {
  return fc.sample(arbitrary, { seed: SEED + salt, numRuns });
}

/** JSON written as it is into a body: numbers such as 1e400, -0 or 1e-400, and nesting too deep to build as objects. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text.length > 40 ? `${this.text.slice(0, 40)}…(${this.text.length} chars)` : this.text;
  }
}

export const raw = (text: string) => new RawJson(text);

/** JSON text of a value in which RawJson parts are written as they are. */
export function jsonText(value: unknown): string {
  const parts: string[] = [];
  const text = JSON.stringify(value, (_key, part: unknown) =>
    part instanceof RawJson ? `\u0000RAW${parts.push(part.text) - 1}\u0000` : part,
  );
  return text.replace(/"\\u0000RAW(\d+)\\u0000"/g, (_match, index: string) => parts[Number(index)] ?? '');
}

/** An object with these keys as its own, `__proto__` included (an object literal would set the prototype instead). */
export function own(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** A copy of `base` with the value at `path` replaced; a path into arrays and objects, as a param names it. */
export function withValue(base: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(base)) return base.map((item, index) => (index === head ? withValue(item, rest, value) : item));
  const object = base as Record<string, unknown>;
  const entries = Object.entries(object).map(([key, item]): [string, unknown] => [key, key === head ? withValue(item, rest, value) : item]);
  if (!Object.hasOwn(object, String(head))) entries.push([String(head), withValue(undefined, rest, value)]);
  return own(entries);
}

/** `depth` objects, each the value of the one around it: `{"a":{"a":…{"leaf":true}…}}`. */
export function nestedObjects(depth: number): RawJson {
  return raw(`${'{"a":'.repeat(depth - 1)}{"leaf":true}${'}'.repeat(depth - 1)}`);
}

/** `depth` arrays, each the only element of the one around it. */
export function nestedArrays(depth: number): RawJson {
  return raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

export const long = (length: number, unit = 'x') => unit.repeat(length);

/** Strings that are no one's identifiers: controls, lone surrogates, bidi and zero-width marks, emoji. */
export const unusualStrings: readonly string[] = [
  '\u0000',
  'SEED-0\u0000',
  '\ud800',
  '\udfff\ud800',
  '\u202eSEED-0',
  'SEED\u200b-0',
  '\ufeff',
  '🙂',
  '👩‍👩‍👧‍👦',
  '\u0007\u001b[31m',
  '%00',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
];

/** Names an object must never treat as anything but keys. */
export const prototypeKeys = ['__proto__', 'constructor', 'prototype'] as const;

/** A percent-encoded path segment; a lone surrogate, which encodeURIComponent refuses, is written as its WTF-8 bytes. */
export function encodeSegment(text: string): string {
  let encoded = '';
  for (const character of text) {
    const point = character.codePointAt(0) ?? 0;
    if (point >= 0xd800 && point <= 0xdfff) {
      const bytes = [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)];
      encoded += bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      encoded += encodeURIComponent(character);
    }
  }
  return encoded;
}

/** Path segments no route should take at face value: broken escapes, encoded slashes and dots, controls, sizes. */
export const hostileSegments: ReadonlyArray<readonly [string, string]> = [
  ['a malformed three-byte escape', '%E0%A4%A'],
  ['a lone percent sign', '%'],
  ['a percent sign before non-hex', '%zz'],
  ['an escaped NUL', '%00'],
  ['an encoded slash', 'a%2Fb'],
  ['an encoded dot-dot', '%2e%2e'],
  ['an encoded dot-dot and slash', '..%2F..%2Fetc%2Fpasswd'],
  ['an overlong UTF-8 slash', '%C0%AF'],
  ['an escaped lone surrogate', '%ED%A0%80'],
  ['a right-to-left override', '%E2%80%AE'],
  ['a zero-width space', '%E2%80%8B'],
  ['an emoji', '%F0%9F%99%82'],
  ['a semicolon parameter', 'x;jsessionid=1'],
  ['256 characters', long(256)],
  ['5,000 characters', long(5000)],
  ['256 escaped emoji', '%F0%9F%99%82'.repeat(256)],
];

/** Arbitrary strings of any code points, controls and astral planes included, with lone surrogates mixed in. */
export const arbitraryText = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength }),
    fc
      .tuple(fc.string({ unit: 'binary', maxLength: maxLength - 1 }), fc.integer({ min: 0xd800, max: 0xdfff }))
      .map(([text, surrogate]) => `${text}${String.fromCharCode(surrogate)}`),
  );

/** Any value fast-check can build, null prototypes, boxed values and sparse arrays included. */
export const anything = fc.anything({
  maxDepth: 3,
  withNullPrototype: true,
  withBoxedValues: true,
  withSparseArray: true,
  withObjectString: true,
});

/** A value as the service sees it: through JSON, where undefined leaves the key out and NaN becomes null. */
export function throughJson(value: unknown): unknown {
  const text = JSON.stringify({ value });
  return (JSON.parse(text) as { value?: unknown }).value;
}

// Wrong values by the kind of field, written so that every one is wrong for every field of its kind.

const typeWrong = [true, [], {}, ['x'], own([['__proto__', 'x']])];

export const wrongValues = {
  /** 1 to 255 characters. */
  identifier: [null, 42, ...typeWrong, '', long(256), long(2000), long(100_000), long(256, '🙂'), long(256, '\ud800')],
  /** Like identifier, where null is allowed. */
  nullableIdentifier: [42, ...typeWrong, '', long(256), long(100_000)],
  /** At most 255 characters, empty allowed. */
  keyText: [null, 42, ...typeWrong, long(256), long(100_000)],
  nullableKeyText: [42, ...typeWrong, long(256), long(2000)],
  text: [null, 42, raw('1e400'), ...typeWrong],
  /** An integer from 0 to 2^53 − 1. */
  cents: [
    '5',
    1.5,
    -1,
    raw('9007199254740992'),
    raw('9007199254740993'),
    raw('1e308'),
    raw('1e400'),
    raw('-1e400'),
    'NaN',
    'Infinity',
    null,
    ...typeWrong,
  ],
  signed: ['5', 1.5, raw('9007199254740992'), raw('-9007199254740992'), raw('1e308'), raw('-1e400'), 'NaN', true, [], null],
  nullableSigned: ['5', 1.5, raw('9007199254740993'), raw('-1e308'), 'Infinity', true, {}],
  /** A record line's quantity: above 0, from 1e-130 to 1e126. */
  recordQuantity: [0, raw('-0'), -1, raw('1e-400'), raw('1e-200'), raw('1e308'), raw('1e400'), '1', 'NaN', null, ...typeWrong],
  exchangeRate: ['1.1', raw('1e308'), raw('1e-200'), raw('-1e400'), raw('1e400'), 'NaN', true, [], {}],
  boolean: ['true', 'false', 0, 1, null, 'yes', [], {}],
  dateTime: [
    '2023-02-29T10:00:00Z',
    '2024-03-01T10:00:00Z\u0000',
    '\u202e2024-03-01T10:00:00Z',
    '２０２４-03-01T10:00:00Z',
    '2024-03-01T10:00:00',
    '',
    0,
    null,
    long(100_000),
    ...typeWrong,
  ],
  outcome: ['WON', 'won\u200b', 'won ', '', null, 1, '__proto__', 'constructor', 'toString', 'hasOwnProperty', ...typeWrong],
  nullableString: [1, true, [], {}, raw('1e400')],
  /** A price line's quantity: above 0 and at most 1,000,000,000. */
  priceQuantity: [0, raw('-0'), -1, raw('1e-400'), 1_000_000_001, raw('1e308'), raw('1e400'), '1', 'NaN', null, ...typeWrong],
  /** A price line's orderValueCents: from 0 to 2^53 − 1, fractions allowed. */
  orderValue: [-1, -0.5, raw('9007199254740992'), raw('1e308'), raw('1e400'), raw('-1e400'), '0', null, ...typeWrong],
  /** A claim's limit: an integer from 1 to 100. */
  claimLimit: [0, 101, 1.5, -1, raw('-0'), '10', null, raw('1e308'), raw('1e400'), raw('1e-400'), ...typeWrong],
  /** A lease: an integer number of seconds from 1 to 3600. */
  leaseSeconds: [0, 3601, 1.5, -60, raw('-0'), '300', null, raw('1e308'), raw('1e-400'), raw('9007199254740993'), ...typeWrong],
  /** An acknowledged task's id: any non-empty string. */
  taskId: ['', 1, null, raw('1e400'), ...typeWrong],
  /** A failed task's reason: at most 1,000 characters. */
  ackError: [1, null, long(1001), long(100_000), ...typeWrong],
  /** An approved price: a decimal amount above 0, with the currency's minor digits, within the bounds. */
  approvedPrice: [
    0,
    raw('-0'),
    -1,
    raw('1e-400'),
    raw('1e-7'),
    12.001,
    raw('1e400'),
    raw('1e308'),
    raw('9007199254740993'),
    raw('90071992547409.93'),
    '12',
    'NaN',
    null,
    ...typeWrong,
  ],
  attributes: [[], 'x', 1, null, true, ['__proto__'], nestedObjects(40), nestedObjects(1000), nestedObjects(100_000), nestedArrays(1000)],
  /** A quote's or an order's lines. */
  documentLines: [[], {}, 'x', null, [null], [1], [[]], ['x'], nestedArrays(100_000)],
} as const;

export type FieldKind = keyof typeof wrongValues;

/** `count` of a kind's wrong values, starting at `offset`: fields of one kind each get a different few. */
export function someWrong(kind: FieldKind, offset: number, count: number): unknown[] {
  const values: readonly unknown[] = wrongValues[kind];
  return Array.from({ length: Math.min(count, values.length) }, (_, index) => values[(offset * count + index) % values.length]);
}

/** Bodies that are no JSON object at all, for any route that reads one. */
export const malformedBodies: ReadonlyArray<readonly [string, string | Buffer]> = [
  ['an unterminated object', '{'],
  ['a truncated member', '{"lines":'],
  ['truncated mid-string', '{"sku":"SEED-'],
  ['a trailing comma', '{"a":1,}'],
  ['single quotes', "{'a': 1}"],
  ['a bare word', 'hello'],
  ['NaN as a value', '{"a":NaN}'],
  ['an unescaped NUL in a string', '{"a":"\u0000"}'],
  ['an unescaped newline in a string', '{"a":"x\ny"}'],
  ['a byte order mark before the object', '\ufeff{}'],
  ['two objects', '{}{}'],
  ['bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0x7b, 0x7d])],
  ['a JSON array', '[]'],
  ['a JSON array of an object', '[{}]'],
  ['a JSON string', '"{}"'],
  ['JSON null', 'null'],
  ['a JSON number', '0'],
  ['negative zero', '-0'],
  ['JSON true', 'true'],
  ['a 4 MB JSON string', `"${long(4 * 1024 * 1024)}"`],
  ['arrays nested 100,000 deep', nestedArrays(100_000).text],
  ['arrays opened 100,000 deep and never closed', '['.repeat(100_000)],
  ['objects nested 100,000 deep', nestedObjects(100_000).text],
  ['objects nested 1,000 deep', nestedObjects(1000).text],
  ['an escaped lone surrogate as a key', '{"\\ud800":"\\udfff"}'],
  ['a right-to-left override as a key', '{"\u202e":1}'],
  ['a zero-width space as a key', '{"\u200b":1}'],
  ['an emoji as a key', '{"🙂":1}'],
  ['a 100,000-character key', `{"${long(100_000)}":1}`],
  ['a key repeated', '{"a":1,"a":2}'],
];

/** Prototype keys as the whole body, each alone and all together. */
export function prototypeBodies(): Array<readonly [string, string]> {
  return [
    ...prototypeKeys.map((key) => [`${key} as the only key`, `{"${key}":{"polluted":true}}`] as const),
    ['__proto__ holding constructor.prototype', '{"__proto__":{"constructor":{"prototype":{"polluted":true}}}}'],
  ];
}

/** A body just over API Gateway's 10 MB, which the gateway refuses with its own 413. */
export function overTenMegabytes(): string {
  return `{"a":"${long(10 * 1024 * 1024)}"}`;
}

/**
 * An array of 500,000 zeros in a field, 1 MB: thousands of times any bound. Larger arrays cost a route that checks
 * each element before the count seconds of CPU, which on a busy machine can outlast its timeout: a matter of speed,
 * which this suite does not judge.
 */
export function hugeArrayBody(field: string): string {
  return `{"${field}":[${'0,'.repeat(500_000)}0]}`;
}

/** Bodies sent with content types that are not JSON. */
export function foreignContentTypes(jsonBody: string): ReadonlyArray<readonly [string, string | null, string | Buffer]> {
  const boundary = 'hostile-boundary';
  return [
    ['a form body as form-urlencoded', 'application/x-www-form-urlencoded', 'lines%5B0%5D%5BproductSku%5D=SEED-0&a=1'],
    [
      'a multipart body',
      `multipart/form-data; boundary=${boundary}`,
      `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${boundary}--\r\n`,
    ],
    ['plain text', 'text/plain', 'price this please'],
    ['a form body with no content type', null, 'a=1&b=2'],
    ['a wrong body as text/plain', 'text/plain', jsonBody],
    ['a wrong body with no content type', null, jsonBody],
    ['UTF-16 text labelled JSON', 'application/json; charset=utf-16', Buffer.from(`\ufeff${jsonBody}`, 'utf16le')],
    ['binary labelled octet-stream', 'application/octet-stream', Buffer.from([0x00, 0x01, 0x02, 0xff, 0x7b])],
  ];
}
