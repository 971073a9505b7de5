// The product page's expected impact: win probability and expected margin per quote at the current and recommended prices, and the evidence, or plainly that it is too thin to say.
import type { Impact } from '#shared/recommendations/schema.ts';
import { money } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import { marginText } from './basis.ts';

type Estimated = Extract<Impact, { status: 'estimated' }>;

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/** A signed amount: the change is what the person weighs, so its sign is always written. */
export function signedMoney(minorUnits: number, currency: string): string {
  const sign = minorUnits > 0 ? '+' : minorUnits < 0 ? '−' : '';
  return `${sign}${money(Math.abs(minorUnits), currency)}`;
}

/** A change of a fraction in percentage points, signed only when it shows at one decimal. */
export function signedPoints(change: number): string {
  const shown = Math.round(change * 1000) / 10;
  const sign = shown > 0 ? '+' : shown < 0 ? '−' : '';
  return `${sign}${Math.abs(shown).toFixed(1)} pts`;
}

/**
 * The evidence in words: the category's closed quotes the win curves were fitted on (the count the reason stack's win
 * model step names too) and the segment mix it is weighted by.
 */
export function impactEvidenceText(evidence: Impact['evidence']): string {
  const mix = evidence.segments.map((segment) => `${segment.segment} ${pct(segment.share)}`).join(', ');
  const weighted = mix ? `, weighted by the recent segment mix: ${mix}` : '';
  // No curve was fitted: the reason above says why, and there is no count to give.
  if (evidence.closedQuotes === 0) return '';
  const quotes = `${evidence.closedQuotes} closed quote${evidence.closedQuotes === 1 ? '' : 's'}`;
  return `From the win model fitted on the category's ${quotes}${weighted}.`;
}

function estimatedTable(impact: Estimated, currency: string): Html {
  const row = (label: string, current: string, recommended: string, change: string) =>
    html`<tr>
      <th scope="row">${label}</th>
      <td class="number">${current}</td>
      <td class="number">${recommended}</td>
      <td class="number">${change}</td>
    </tr>`;
  const { current, recommended } = impact;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Expected impact per quote">
    <table class="data impact">
      <caption>
        Per quote of ${impact.quantity} unit${impact.quantity === 1 ? '' : 's'} (the typical quantity), in ${currency}
      </caption>
      <thead>
        <tr>
          <th scope="col"></th>
          <th scope="col" class="number">At the current price</th>
          <th scope="col" class="number">At the recommended price</th>
          <th scope="col" class="number">Change</th>
        </tr>
      </thead>
      <tbody>
        ${row('Price', money(current.priceCents, currency), money(recommended.priceCents, currency), signedMoney(recommended.priceCents - current.priceCents, currency))}
        ${row('Margin', marginText(current.margin), marginText(recommended.margin), signedPoints(recommended.margin - current.margin))}
        ${row(
          'Win probability',
          pct(current.winProbability),
          pct(recommended.winProbability),
          signedPoints(recommended.winProbability - current.winProbability),
        )}
        ${row(
          'Expected margin',
          money(current.expectedMarginCents, currency),
          money(recommended.expectedMarginCents, currency),
          signedMoney(impact.expectedMarginChangeCents, currency),
        )}
        ${row(
          'Expected revenue',
          money(current.expectedRevenueCents, currency),
          money(recommended.expectedRevenueCents, currency),
          signedMoney(impact.expectedRevenueChangeCents, currency),
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * The change over a month at the product's recent quote rate, and the window the rate was counted over; nothing until
 * a bands job has counted its quotes.
 */
export function monthText(impact: Estimated, currency: string): Html {
  const month = impact.perMonth;
  if (!month) return html``;
  const lines = `${month.quoteLines} quote line${month.quoteLines === 1 ? '' : 's'}`;
  return html`<p>
    About <strong>${signedMoney(month.expectedMarginChangeCents, currency)} a month</strong> at its recent quote rate: ${lines} in the
    ${month.days} days to ${month.asOf}.
  </p>`;
}

/** The section: the estimate and its evidence; too thin to say and why; or not computed yet for an older recommendation. */
export function impactSection(impact: Impact | undefined, currency: string): Html {
  if (!impact) {
    return html`<p>Not estimated: this recommendation was stored before expected impact was computed. The next pricing run adds it.</p>`;
  }
  if (impact.status === 'too_thin') {
    const evidence = impactEvidenceText(impact.evidence);
    return html`<p><strong>Too thin to say.</strong> ${impact.reason}</p>
      ${evidence ? html`<p class="hint">${evidence}</p>` : ''}`;
  }
  const change = impact.expectedMarginChangeCents;
  const verdict =
    change === 0
      ? 'The change is expected to leave the margin per quote as it is.'
      : `Moving to the recommended price is expected to ${change > 0 ? 'add' : 'lose'} ${money(Math.abs(change), currency)} of margin per quote.`;
  return html`<p><strong>${verdict}</strong></p>
    ${monthText(impact, currency)} ${estimatedTable(impact, currency)}
    <p class="hint">
      ${impactEvidenceText(impact.evidence)} Expected margin is the win probability times the margin of a won quote, from the win model
      fitted on these quotes.
    </p>`;
}
