// Unit tests of currencies: ISO 4217 minor-unit digits and the factor that moves minor units from one currency into another.
import { describe, expect, it } from 'vitest';
import {
  conversionFactor,
  exceedsDecimalRange,
  formatMinorUnits,
  fromDecimalAmount,
  maxDecimalMinorUnits,
  minorUnitDigits,
  toDecimalAmount,
} from './currency.ts';

describe('minor units', () => {
  it('has no decimals for the yen and the other zero-decimal currencies', () => {
    for (const currency of ['JPY', 'KRW', 'CLP', 'VND', 'ISK', 'XOF']) expect(minorUnitDigits(currency)).toBe(0);
  });

  it('has three decimals for the dinars and rials that use fils or baisa', () => {
    for (const currency of ['KWD', 'BHD', 'JOD', 'OMR', 'TND', 'IQD', 'LYD']) expect(minorUnitDigits(currency)).toBe(3);
  });

  it('has four decimals for the unidades de fomento', () => {
    expect(minorUnitDigits('CLF')).toBe(4);
    expect(minorUnitDigits('UYW')).toBe(4);
  });

  it('has two decimals for a code named like an object property', () => {
    for (const code of ['constructor', 'toString', '__proto__']) expect(minorUnitDigits(code)).toBe(2);
  });

  it('has two decimals for the dollar, the euro and any code it does not know', () => {
    for (const currency of ['USD', 'EUR', 'GBP', 'XYZ', '']) expect(minorUnitDigits(currency)).toBe(2);
  });
});

describe('the conversion factor', () => {
  it('is exactly 1 between a currency and itself, whatever rates are given', () => {
    expect(conversionFactor({ currency: 'EUR', rate: 1.1 }, { currency: 'EUR', rate: 0.9 })).toBe(1);
  });

  it('is the ratio of the rates between two currencies with the same minor unit', () => {
    // 1 EUR = 1.10 base, 1 GBP = 1.25 base: 100 euro cents are 88 pence.
    expect(conversionFactor({ currency: 'EUR', rate: 1.1 }, { currency: 'GBP', rate: 1.25 })).toBeCloseTo(0.88, 12);
    expect(conversionFactor({ currency: 'GBP', rate: 1.25 }, { currency: 'EUR', rate: 1.1 })).toBeCloseTo(1.25 / 1.1, 12);
  });

  it('turns cents into yen by 10^(0−2) as well as by the rate', () => {
    // 125 yen to the dollar: 1 cent is 1.25 yen, not 125.
    expect(conversionFactor({ currency: 'USD', rate: 1 }, { currency: 'JPY', rate: 0.008 })).toBeCloseTo(1.25, 12);
  });

  it('turns yen into cents by 10^(2−0)', () => {
    expect(conversionFactor({ currency: 'JPY', rate: 0.008 }, { currency: 'USD', rate: 1 })).toBeCloseTo(0.8, 12);
  });

  it('turns fils into cents by 10^(2−3)', () => {
    // 1 KWD = 3.25 USD = 325 cents, and 1 KWD is 1000 fils: 1 fil is 0.325 cents.
    expect(conversionFactor({ currency: 'KWD', rate: 3.25 }, { currency: 'USD', rate: 1 })).toBeCloseTo(0.325, 12);
    expect(conversionFactor({ currency: 'USD', rate: 1 }, { currency: 'KWD', rate: 3.25 })).toBeCloseTo(1 / 0.325, 12);
  });

  it('round-trips: converting there and back is a factor of 1', () => {
    const there = conversionFactor({ currency: 'KWD', rate: 3.25 }, { currency: 'JPY', rate: 0.0067 });
    const back = conversionFactor({ currency: 'JPY', rate: 0.0067 }, { currency: 'KWD', rate: 3.25 });
    expect(there * back).toBeCloseTo(1, 12);
  });
});

describe('decimal amounts', () => {
  it('shows minor units as the decimal amount of the currency', () => {
    expect(toDecimalAmount(1999, 'USD')).toBe(19.99);
    expect(toDecimalAmount(1999, 'JPY')).toBe(1999);
    expect(toDecimalAmount(1999, 'KWD')).toBe(1.999);
    expect(toDecimalAmount(19_999, 'CLF')).toBe(1.9999);
  });

  it('shows whole and small amounts without trailing noise', () => {
    expect(toDecimalAmount(2500, 'USD')).toBe(25);
    expect(toDecimalAmount(1, 'USD')).toBe(0.01);
    expect(toDecimalAmount(0, 'USD')).toBe(0);
    expect(toDecimalAmount(1500, 'KWD')).toBe(1.5);
  });

  it('shows a negative amount as a negative decimal', () => {
    expect(toDecimalAmount(-1999, 'USD')).toBe(-19.99);
  });

  it('rounds a fractional number of minor units to the currency decimals', () => {
    expect(toDecimalAmount(1999.4, 'USD')).toBe(19.99);
    expect(toDecimalAmount(1999.6, 'JPY')).toBe(2000);
  });

  it('reads a decimal amount as whole minor units', () => {
    expect(fromDecimalAmount(19.99, 'USD')).toBe(1999);
    expect(fromDecimalAmount(1999, 'JPY')).toBe(1999);
    expect(fromDecimalAmount(1.999, 'KWD')).toBe(1999);
    expect(fromDecimalAmount(1.9999, 'CLF')).toBe(19_999);
    expect(fromDecimalAmount(0, 'USD')).toBe(0);
  });

  it('reads amounts whose binary double is not the decimal written', () => {
    // 19.99 × 100 is 1998.9999…, 0.29 × 100 is 28.999…, 0.1 + 0.2 is 0.30000000000000004.
    expect(fromDecimalAmount(0.29, 'USD')).toBe(29);
    expect(fromDecimalAmount(0.1 + 0.2, 'USD')).toBe(30);
    expect(fromDecimalAmount(1.001, 'KWD')).toBe(1001);
    expect(fromDecimalAmount(-19.99, 'USD')).toBe(-1999);
  });

  it('refuses an amount with more decimals than the currency has', () => {
    expect(fromDecimalAmount(15.001, 'USD')).toBeUndefined();
    expect(fromDecimalAmount(1.005, 'USD')).toBeUndefined();
    expect(fromDecimalAmount(15.5, 'JPY')).toBeUndefined();
    expect(fromDecimalAmount(1.5555, 'KWD')).toBeUndefined();
    expect(fromDecimalAmount(0.001, 'XYZ')).toBeUndefined();
  });

  it('refuses an amount that is not a finite number', () => {
    expect(fromDecimalAmount(Number.NaN, 'USD')).toBeUndefined();
    expect(fromDecimalAmount(Number.POSITIVE_INFINITY, 'USD')).toBeUndefined();
    expect(fromDecimalAmount(Number.NEGATIVE_INFINITY, 'USD')).toBeUndefined();
  });

  it('round-trips every amount of whole minor units', () => {
    for (const currency of ['USD', 'JPY', 'KWD', 'CLF']) {
      for (const minorUnits of [0, 1, 7, 99, 1999, 123_456, 9_999_999]) {
        expect(fromDecimalAmount(toDecimalAmount(minorUnits, currency), currency)).toBe(minorUnits);
      }
    }
  });
});

describe('the largest decimal amount', () => {
  it('is 2^53 − 1 minor units without decimals, and lower with them, where a double is exact to one minor unit', () => {
    expect(maxDecimalMinorUnits('JPY')).toBe(Number.MAX_SAFE_INTEGER);
    expect(maxDecimalMinorUnits('USD')).toBe(2 ** 46 * 100 - 1);
    expect(maxDecimalMinorUnits('KWD')).toBe(2 ** 43 * 1000 - 1);
    expect(maxDecimalMinorUnits('CLF')).toBe(2 ** 39 * 10_000 - 1);
  });

  it('tells every amount up to it apart from the next, where past it two amounts are one number', () => {
    // 90,071,992,547,409.90 and .91 USD parse to the same double: no check of the decimals could tell which was meant.
    expect(90_071_992_547_409.9).toBe(90_071_992_547_409.91);
    for (const currency of ['USD', 'KWD', 'CLF']) {
      const max = maxDecimalMinorUnits(currency);
      for (let minorUnits = max - 1000; minorUnits <= max; minorUnits++) {
        const decimal = Number(formatMinorUnits(minorUnits, currency).replaceAll(',', ''));
        expect(fromDecimalAmount(decimal, currency)).toBe(minorUnits);
      }
      expect(exceedsDecimalRange(Number(formatMinorUnits(max, currency).replaceAll(',', '')), currency)).toBe(false);
      expect(exceedsDecimalRange(Number(formatMinorUnits(max + 1, currency).replaceAll(',', '')), currency)).toBe(true);
    }
  });

  it('is written exactly, with thousands separators and the currency decimals', () => {
    expect(formatMinorUnits(7_036_874_417_766_399, 'USD')).toBe('70,368,744,177,663.99');
    expect(formatMinorUnits(Number.MAX_SAFE_INTEGER, 'JPY')).toBe('9,007,199,254,740,991');
    expect(formatMinorUnits(5, 'KWD')).toBe('0.005');
    expect(formatMinorUnits(-123_456, 'USD')).toBe('-1,234.56');
    expect(formatMinorUnits(100, 'USD')).toBe('1.00');
  });
});
