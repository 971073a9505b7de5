// Unit tests of a drained batch's band scope: the categories it touched and the product and customer bands it may write.
import { describe, expect, it } from 'vitest';
import { TouchedSet } from '#shared/canonical/items.ts';
import type { Band } from '#shared/pricing/model.ts';
import { type Touched, touchedScope } from './recompute.ts';

const band: Band = {
  floor: 0.2,
  target: 0.3,
  stretch: 0.4,
  nEff: 10,
  medianQuantity: 5,
  cov: 0.1,
  newestAtMs: 0,
  sumW: 10,
  sumW2: 10,
  asOfMs: 0,
};

function touched(nodes: readonly unknown[][], products: readonly string[] = [], customers: readonly string[] = []): Touched {
  return { products: new Set(products), customers: new Set(customers), nodes: new Set(nodes.map((node) => JSON.stringify(node))) };
}

const skus = (...names: string[]) => new Map(names.map((name) => [name, band]));

describe('the categories a batch touched', () => {
  it('come from category and segment × category nodes, each once, sorted', () => {
    const scope = touchedScope(
      touched([
        ['segmentCategory', 'smb', 'Fasteners'],
        ['category', 'Fasteners'],
        ['category', 'Adhesives'],
        ['segmentCategory', '', 'Cables'],
        ['segmentCategory', 'enterprise', 'Adhesives'],
      ]),
    );
    expect(scope.categories).toEqual(['Adhesives', 'Cables', 'Fasteners']);
  });

  it('take nothing from SKU nodes, products or customers', () => {
    const scope = touchedScope(
      touched(
        [
          ['segmentSku', 'smb', 'SKU-1'],
          ['customerSku', 'C-1', 'SKU-1'],
        ],
        ['SKU-1'],
        ['C-1'],
      ),
    );
    expect(scope.categories).toEqual([]);
  });

  it('are none for an empty batch', () => {
    expect(touchedScope(touched([])).categories).toEqual([]);
  });
});

describe('the product bands a batch may write', () => {
  const scope = touchedScope(
    touched(
      [
        ['segmentSku', 'smb', 'SKU-9'],
        ['segmentSku', '', 'SKU-8'],
        ['customerSku', 'C-1', 'SKU-7'],
      ],
      ['SKU-1'],
    ),
  );

  it('are those of the products it touched', () => {
    expect(scope.writes.product('SKU-1')).toBe(true);
  });

  it('are those of the SKUs of its segment × SKU nodes, in any segment', () => {
    expect(scope.writes.product('SKU-9')).toBe(true);
    expect(scope.writes.product('SKU-8')).toBe(true);
  });

  it('are not those of SKUs only a customer × SKU node names, nor of any other SKU', () => {
    expect(scope.writes.product('SKU-7')).toBe(false);
    expect(scope.writes.product('SKU-2')).toBe(false);
    expect(scope.writes.product('smb')).toBe(false);
  });
});

describe('the customer bands a batch may write', () => {
  const scope = touchedScope(
    touched(
      [
        ['customerSku', 'C-1', 'SKU-1'],
        ['customerSku', 'C-2', 'SKU-2'],
      ],
      ['SKU-3'],
      ['C-3'],
    ),
  );

  it('are a customer’s when one of its SKUs is a touched customer × SKU pair', () => {
    expect(scope.writes.customer('C-1', skus('SKU-1'), 'Fasteners')).toBe(true);
    expect(scope.writes.customer('C-1', skus('SKU-5', 'SKU-1'), 'Fasteners')).toBe(true);
    expect(scope.writes.customer('C-2', skus('SKU-2'), 'Fasteners')).toBe(true);
  });

  it('are not a customer’s whose SKUs were touched only for another customer', () => {
    expect(scope.writes.customer('C-1', skus('SKU-2'), 'Fasteners')).toBe(false);
    expect(scope.writes.customer('C-2', skus('SKU-1'), 'Fasteners')).toBe(false);
  });

  it('are not a customer’s that the batch touched only as a customer, or only through a touched product', () => {
    expect(scope.writes.customer('C-3', skus('SKU-1', 'SKU-3'), 'Fasteners')).toBe(false);
    expect(scope.writes.customer('C-1', skus('SKU-3'), 'Fasteners')).toBe(false);
  });

  it('are not a customer’s without SKUs', () => {
    expect(scope.writes.customer('C-1', new Map(), 'Fasteners')).toBe(false);
  });

  it('keep customer and SKU apart however their ids run together', () => {
    const tricky = touchedScope(touched([['customerSku', 'C', '1SKU']]));
    expect(tricky.writes.customer('C1', skus('SKU'), 'Fasteners')).toBe(false);
    expect(tricky.writes.customer('C', skus('1SKU'), 'Fasteners')).toBe(true);
  });
});

describe('a scope from the nodes a drain records', () => {
  it('covers the category, the product and the customer × SKU pair of each drained line', () => {
    const set = new TouchedSet();
    set.addLine({ productSku: 'SKU-1', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    set.addLine({ productSku: 'SKU-2', customer: null, segment: undefined, category: 'Adhesives' });
    set.addLine({ productSku: 'SKU-3', customer: 'C-2', segment: undefined, category: undefined });
    const scope = touchedScope(set);
    expect(scope.categories).toEqual(['Adhesives', 'Fasteners']);
    for (const sku of ['SKU-1', 'SKU-2', 'SKU-3']) expect(scope.writes.product(sku)).toBe(true);
    expect(scope.writes.customer('C-1', skus('SKU-1'), 'Fasteners')).toBe(true);
    expect(scope.writes.customer('C-2', skus('SKU-3'), 'Fasteners')).toBe(true);
    expect(scope.writes.customer('C-1', skus('SKU-2', 'SKU-3'), 'Adhesives')).toBe(false);
  });

  it('rewrites a customer whose lines in the category changed whole, whichever SKUs it still buys there', () => {
    const set = new TouchedSet();
    set.addLine({ productSku: 'SKU-1', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    const scope = touchedScope(set);
    expect(scope.writes.customer('C-1', skus('SKU-7'), 'Fasteners')).toBe(true);
    expect(scope.writes.customer('C-1', skus('SKU-7'), 'Adhesives')).toBe(false);
  });

  it('names the products and customers with lines touched in each category, whose bands there go with their last line', () => {
    const set = new TouchedSet();
    set.addLine({ productSku: 'SKU-1', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    set.addLine({ productSku: 'SKU-2', customer: null, segment: undefined, category: 'Adhesives' });
    set.addLine({ productSku: 'SKU-3', customer: 'C-2', segment: undefined, category: undefined });
    const scope = touchedScope(set);
    expect(scope.writes.linesTouchedIn('Fasteners')).toEqual({ products: new Set(['SKU-1']), customers: new Set(['C-1']) });
    expect(scope.writes.linesTouchedIn('Adhesives')).toEqual({ products: new Set(['SKU-2']), customers: new Set() });
    expect(scope.writes.linesTouchedIn('Sealants')).toEqual({ products: new Set(), customers: new Set() });
  });
});

describe('the list prices a batch may have moved', () => {
  it('are those of the products whose records it carried, not of those it only sold', () => {
    const set = new TouchedSet();
    set.addNode(['category', 'Fasteners']);
    set.addNode(['productRecord', 'SKU-1']);
    set.addLine({ productSku: 'SKU-2', customer: 'C-1', segment: 'smb', category: 'Fasteners' });
    const scope = touchedScope(set);
    expect(scope.listPriceMayHaveMoved('SKU-1')).toBe(true);
    expect(scope.listPriceMayHaveMoved('SKU-2')).toBe(false);
    expect(scope.categories).toEqual(['Fasteners']);
  });
});
