import { describe, expect, it } from 'vitest';
import { expectShown } from '#test/support/markup.ts';
import { type CataloguePage, catalogueRow, encodeCursor, readCatalogueQuery } from '#shared/recommendations/catalogue.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { catalogueView } from './recommendation-list.ts';
import { productView, readPrice } from './recommendations.ts';

const HOSTILE = '<script>alert("x")</script> & "quotes"';

function priced(sku: string, extra: Partial<Recommendation> = {}): Recommendation {
  return {
    status: 'priced',
    sku,
    name: `Lamp ${sku}`,
    category: 'Lighting',
    currency: 'USD',
    currentPriceCents: 1999,
    recommendedPriceCents: 2150,
    pricingDecisionId: 'pd_1',
    updatedAt: '2026-11-01T08:00:00.000Z',
    floorCents: 1500,
    ceilingCents: 3000,
    rationale: 'Priced at the segment target.',
    reasonSummary: 'segment target 30%',
    drivers: [{ param: 'quantity', label: 'Deal size', points: -0.5, direction: 'down' }],
    confidence: 'medium',
    ...extra,
  } as Recommendation;
}

/** A page as the list read it: its rows, the rows before it, and the cursor of the next. */
function listView(recommendations: Recommendation[], search = '', page: Partial<CataloguePage> = {}) {
  const params = new URLSearchParams(search);
  const query = readCatalogueQuery(params);
  const read: CataloguePage = { rows: recommendations.map(catalogueRow), shown: 0, categories: ['Lighting'], ...page };
  return catalogueView(read, query, params).body.text;
}

describe('the recommendations page', () => {
  it('shows a row per product with its prices, change and confidence, linked to its page', () => {
    const markup = listView([priced('LAMP-1'), priced('LAMP 2/B')]);
    expectShown(markup, '<a href="/console/recommendations/LAMP-1">LAMP-1</a>');
    expectShown(markup, '<a href="/console/recommendations/LAMP%202%2FB">LAMP 2/B</a>');
    expectShown(markup, '19.99 USD');
    expectShown(markup, '21.50 USD');
    expectShown(markup, '+7.55%');
    expectShown(markup, '<td class="wide-only">medium</td>');
    expectShown(markup, 'Products 1–2.');
  });

  it('escapes a hostile product name and category wherever it shows them', () => {
    const markup = listView([priced('LAMP-1', { name: HOSTILE, category: HOSTILE })]);
    expect(markup).not.toContain('<script>');
    expectShown(markup, '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;');
  });

  it('keeps the filter in its page links, and marks the chosen options', () => {
    const many = Array.from({ length: 50 }, (_, i) => priced(`SKU-${String(i).padStart(3, '0')}`));
    const after = encodeCursor({ segment: 0, sku: 'SKU-000', sortKey: 'k', shown: 50 });
    const next = encodeCursor({ segment: 0, sku: 'SKU-049', sortKey: 'k2', shown: 100 });
    const markup = listView(many, `category=Lighting&sort=change-desc&after=${after}`, { shown: 50, next });
    expectShown(markup, 'href="/console/recommendations?category=Lighting&amp;sort=change-desc">First page</a>');
    expectShown(markup, `href="/console/recommendations?category=Lighting&amp;sort=change-desc&amp;after=${next}" rel="next"`);
    expectShown(markup, '<option value="Lighting" selected>');
    expectShown(markup, '<option value="change-desc" selected>');
    expectShown(markup, 'Matching products 51–100.');
  });

  it('offers no page links for a single page, and says when nothing matches', () => {
    expect(listView([priced('LAMP-1')])).not.toContain('Next page');
    expect(listView([], 'q=nothing')).toContain('No product matches the filter.');
    expect(listView([])).toContain('No recommendations yet');
  });

  it('offers to search on when a search spent its reads without a match', () => {
    const next = encodeCursor({ segment: 0, sku: 'SKU-499', sortKey: 'k', shown: 0 });
    const markup = listView([], 'q=rare', { next });
    expect(markup).toContain('search on with the next page');
    expect(markup).toContain('rel="next"');
  });
});

describe("a product's page", () => {
  const base = { sku: 'LAMP-1', margins: [{ month: '2026-10', marginPct: 31.2, lines: 4 }], csrfToken: 'tok"en' };

  it('shows the rationale, the drivers, the guardrails and the margin chart', () => {
    const markup = productView({ ...base, recommendation: priced('LAMP-1'), canApprove: true }).body.text;
    expectShown(markup, 'Priced at the segment target.');
    expectShown(markup, '<th scope="row">Deal size</th><td class="number">-0.50</td><td>down</td>');
    expectShown(markup, '<dt>Floor</dt><dd>15.00 USD</dd>');
    expectShown(markup, '<dt>Ceiling</dt><dd>30.00 USD</dd>');
    expectShown(markup, 'role="img"');
    expectShown(markup, '<th scope="row">2026-10</th><td class="number">31.2%</td>');
  });

  it('offers a pricing user the approve form, posting to the page with its CSRF token and action', () => {
    const markup = productView({ ...base, recommendation: priced('LAMP-1'), canApprove: true }).body.text;
    expectShown(markup, 'method="post" action="/console/recommendations/LAMP-1"');
    expectShown(markup, '<input type="hidden" name="_csrf" value="tok&quot;en">');
    expectShown(markup, '<input type="hidden" name="_action" value="approve">');
    expectShown(markup, 'value="21.50"');
  });

  it('shows others no form, only that approving needs the pricing role', () => {
    const markup = productView({ ...base, recommendation: priced('LAMP-1'), canApprove: false }).body.text;
    expect(markup).not.toContain('name="_action"');
    expectShown(markup, 'needs the <strong>pricing</strong> role');
  });

  it('shows a refused approval inline, beside the price entered', () => {
    const markup = productView({
      ...base,
      recommendation: priced('LAMP-1'),
      canApprove: true,
      attempt: { price: '1.00', error: 'price 1.00 USD is below the floor of 15.00 USD.' },
    }).body.text;
    expectShown(markup, 'id="approve-error">price 1.00 USD is below the floor of 15.00 USD.</p>');
    expectShown(markup, 'value="1.00" aria-invalid="true" aria-describedby="approve-error approve-hint" autofocus');
  });

  it('escapes a hostile name, rationale and driver label', () => {
    const recommendation = priced('LAMP-1', {
      name: HOSTILE,
      rationale: HOSTILE,
      drivers: [{ param: 'x', label: HOSTILE, points: 1, direction: 'up' }],
    });
    expect(productView({ ...base, recommendation, canApprove: true }).body.text).not.toContain('<script>');
  });

  it('says so for a SKU the workspace does not know, and for a product it cannot price', () => {
    expect(productView({ ...base, sku: '<b>', recommendation: undefined, canApprove: true }).body.text).toContain('No product &lt;b&gt;');
    const unpriced: Recommendation = {
      status: 'unpriced',
      sku: 'FREE',
      currency: 'USD',
      currentPriceCents: 100,
      pricingDecisionId: 'pd',
      updatedAt: 'x',
      reason: 'no_cost_basis',
    };
    const markup = productView({ ...base, sku: 'FREE', recommendation: unpriced, canApprove: true }).body.text;
    expectShown(markup, 'Not priced');
    expect(markup).not.toContain('name="_action"');
  });

  it('reads the price entered as a positive decimal, or says what is wrong with it', () => {
    expect(readPrice(' 12.50 ')).toBe(12.5);
    expect(readPrice('0')).toMatch(/greater than 0/);
    expect(readPrice('12,50')).toMatch(/decimal amount/);
    expect(readPrice(undefined)).toMatch(/decimal amount/);
  });
});
