// Unit tests of the price calls' bands cache: which keys it serves, for how long, when a bands stamp replaces them, and that it is off at 0 seconds.
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '#platform/table/keys.ts';
import { forgetCachedBands, fromBandsCache, keepBands, noteBandsStamp } from './bands-cache.ts';

const previous = process.env.PRICE_BANDS_CACHE_SECONDS;
const workspaceBand = keys.workspaceBands('ws_a');
const categoryBands = keys.categoryBands('ws_a', 'Tools');
const product = keys.product('ws_a', 'sku-1');
const AT = 1_800_000_000_000;

function withSeconds(seconds: string): void {
  process.env.PRICE_BANDS_CACHE_SECONDS = seconds;
  forgetCachedBands();
}

describe('the bands cache of price calls', () => {
  afterEach(() => {
    if (previous === undefined) delete process.env.PRICE_BANDS_CACHE_SECONDS;
    else process.env.PRICE_BANDS_CACHE_SECONDS = previous;
    forgetCachedBands();
  });

  it('serves the workspace and category bands it read for its time to live, and reads them again after', () => {
    withSeconds('3');
    const items = [
      { ...workspaceBand, type: 'workspaceBands' },
      { ...categoryBands, type: 'categoryBands' },
    ];
    keepBands([workspaceBand, categoryBands], items, AT);
    expect(fromBandsCache([workspaceBand, categoryBands], AT + 2_999)).toEqual({ cached: items, toRead: [], toReadConsistent: [] });
    expect(fromBandsCache([workspaceBand, categoryBands], AT + 3_000)).toEqual({
      cached: [],
      toRead: [workspaceBand, categoryBands],
      toReadConsistent: [],
    });
  });

  it('remembers a bands item the table did not have for as long, without serving anything for it', () => {
    withSeconds('3');
    keepBands([categoryBands], [], AT);
    expect(fromBandsCache([categoryBands], AT + 1)).toEqual({ cached: [], toRead: [], toReadConsistent: [] });
  });

  it('never keeps what is not bands: products and customers are read on every call', () => {
    withSeconds('3');
    keepBands([product], [{ ...product, type: 'product' }], AT);
    expect(fromBandsCache([product], AT + 1)).toEqual({ cached: [], toRead: [product], toReadConsistent: [] });
  });

  it('is off at 0 seconds, as in local mode', () => {
    withSeconds('0');
    keepBands([workspaceBand], [{ ...workspaceBand, type: 'workspaceBands' }], AT);
    expect(fromBandsCache([workspaceBand], AT)).toEqual({ cached: [], toRead: [workspaceBand], toReadConsistent: [] });
  });

  it('reads again, strongly consistent, the bands it cached before a newer bands stamp of their workspace', () => {
    withSeconds('60');
    const items = [
      { ...workspaceBand, type: 'workspaceBands' },
      { ...categoryBands, type: 'categoryBands' },
    ];
    noteBandsStamp('ws_a', AT - 10_000);
    keepBands([workspaceBand, categoryBands], items, AT);
    noteBandsStamp('ws_a', AT + 5);
    expect(fromBandsCache([workspaceBand, categoryBands, product], AT + 10)).toEqual({
      cached: [],
      toRead: [product],
      toReadConsistent: [workspaceBand, categoryBands],
    });
    // Read again under the new stamp, they are served until their time to live as before.
    keepBands([workspaceBand, categoryBands], items, AT + 10);
    expect(fromBandsCache([workspaceBand, categoryBands], AT + 20)).toEqual({ cached: items, toRead: [], toReadConsistent: [] });
  });

  it('keeps serving its bands for a stamp no newer than the one they were read under, and for another workspace', () => {
    withSeconds('60');
    const item = { ...workspaceBand, type: 'workspaceBands' };
    noteBandsStamp('ws_a', AT);
    keepBands([workspaceBand], [item], AT);
    noteBandsStamp('ws_a', AT - 1);
    noteBandsStamp('ws_a', AT);
    noteBandsStamp('ws_b', AT + 1_000);
    noteBandsStamp('ws_a', undefined);
    expect(fromBandsCache([workspaceBand], AT + 1)).toEqual({ cached: [item], toRead: [], toReadConsistent: [] });
  });

  it('reads a band it found missing again once a newer stamp says the bands were written', () => {
    withSeconds('60');
    keepBands([categoryBands], [], AT);
    noteBandsStamp('ws_a', AT + 1);
    expect(fromBandsCache([categoryBands], AT + 2)).toEqual({ cached: [], toRead: [], toReadConsistent: [categoryBands] });
  });
});
