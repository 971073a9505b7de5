// Currencies: ISO 4217 minor units, and moving an amount in minor units from one currency into another at the service's rates.

/** Currencies whose minor unit is not the cent; every other code has two decimals. */
const MINOR_UNIT_DIGITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

export function minorUnitDigits(currency: string): number {
  // Own keys only: a currency named like an Object property ("constructor") is just an unknown code.
  return Object.hasOwn(MINOR_UNIT_DIGITS, currency) ? (MINOR_UNIT_DIGITS[currency] as number) : 2;
}

/**
 * The factor that turns minor units of `from` into minor units of `to`, given each currency's rate in units of the base
 * currency per unit (the base's own rate is 1).
 */
export function conversionFactor(from: { currency: string; rate: number }, to: { currency: string; rate: number }): number {
  if (from.currency === to.currency) return 1;
  return (from.rate / to.rate) * 10 ** (minorUnitDigits(to.currency) - minorUnitDigits(from.currency));
}

/** An amount in minor units as the decimal the overview shows: 1999 USD is 19.99, 1999 JPY is 1999, 1999 KWD 1.999. */
export function toDecimalAmount(minorUnits: number, currency: string): number {
  const digits = minorUnitDigits(currency);
  return Number((minorUnits / 10 ** digits).toFixed(digits));
}

/**
 * The largest amount of a currency, in minor units, that a decimal amount can name exactly. A double near 2^e is exact
 * to steps of 2^(e − 52); once a step is wider than one minor unit, neighbouring amounts parse to the same number
 * (90,071,992,547,409.90 and .91 USD are one double), so an amount past this bound cannot be read as the one meant.
 * It is 2^53 − 1 for a currency without decimals, where every integer up to it is exact, and lower for the others:
 * 70,368,744,177,663.99 USD, for one.
 */
export function maxDecimalMinorUnits(currency: string): number {
  const digits = minorUnitDigits(currency);
  const exponent = Math.floor(52 - digits * Math.log2(10));
  return Math.min(Number.MAX_SAFE_INTEGER, 2 ** (exponent + 1) * 10 ** digits - 1);
}

/**
 * Whole minor units written exactly as the currency's decimal, with thousands separators: 7036874417766399 is
 * "70,368,744,177,663.99" in USD. Digits are moved as text, since dividing by 100 would round what a double cannot hold.
 */
export function formatMinorUnits(minorUnits: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const text = String(Math.abs(Math.trunc(minorUnits))).padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits).replace(/\B(?=(\d{3})+$)/g, ',');
  const fraction = digits > 0 ? `.${text.slice(text.length - digits)}` : '';
  return `${minorUnits < 0 ? '-' : ''}${whole}${fraction}`;
}

/** Whether a decimal amount lies past maxDecimalMinorUnits once in minor units, whatever its decimals. */
export function exceedsDecimalRange(amount: number, currency: string): boolean {
  return Math.abs(amount) * 10 ** minorUnitDigits(currency) > maxDecimalMinorUnits(currency);
}

/**
 * A decimal amount in whole minor units, or undefined when it has more decimals than the currency has minor digits.
 * A binary double is rarely the decimal it was written as (19.99 × 100 is 1998.9999…), so "whole" allows for that.
 */
export function fromDecimalAmount(amount: number, currency: string): number | undefined {
  const scaled = amount * 10 ** minorUnitDigits(currency);
  const whole = Math.round(scaled);
  return Math.abs(scaled - whole) <= Math.abs(scaled) * Number.EPSILON * 4 ? whole : undefined;
}
