// How the console's pages write amounts, percentages and moments: one way everywhere, so that columns line up and read alike.
import { formatMinorUnits } from '#shared/pricing/currency.ts';
import { type Html, html } from './html.ts';

export function money(minorUnits: number, currency: string): string {
  return `${formatMinorUnits(minorUnits, currency)} ${currency}`;
}

/** A signed percentage to 2 decimals; an em dash when there is none. */
export function signedPct(value: number | null): string {
  if (value === null) return '—';
  return `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(2)}%`;
}

export function dollars(value: number, digits = 4): string {
  return `$${value.toFixed(digits)}`;
}

/**
 * What something cost, as every page of the console writes it: cents from a cent up, and two significant digits
 * below, where a small workspace's day or one request costs fractions of a cent that cents would show as nothing.
 */
export function costDollars(value: number): string {
  if (value === 0) return '$0';
  const sign = value < 0 ? '−' : '';
  const size = Math.abs(value);
  // Rounded to two significant digits first, so that the digits follow the rounded amount: 0.000999 is 0.0010, not
  // 0.00100, and 0.00999 is a cent.
  const rounded = Number(size.toPrecision(2));
  if (rounded >= 0.01) return `${sign}$${size.toFixed(2)}`;
  // Fixed digits rather than toPrecision, which writes a ten-millionth of a dollar as 1e-7.
  return `${sign}$${rounded.toFixed(Math.min(20, 1 - Math.floor(Math.log10(rounded))))}`;
}

/**
 * An ISO moment as a person reads it, in UTC to the second, inside a <time> that keeps the exact value. In a table
 * whose headings say UTC (`today` given), a moment of today is its time alone, so that recent rows stay narrow.
 */
export function moment(iso: string | undefined, today?: { readonly nowMs: number }): Html {
  if (!iso) return html`—`;
  const text = iso.slice(0, 19).replace('T', ' ');
  if (!today) return html`<time datetime="${iso}">${text} UTC</time>`;
  const sameDay = iso.slice(0, 10) === new Date(today.nowMs).toISOString().slice(0, 10);
  return html`<time datetime="${iso}">${sameDay ? text.slice(11) : text}</time>`;
}

/** The notice a redirect carried, or an error to show above a form: announced to screen readers as it appears. */
export function alert(kind: 'error' | 'notice', text: string | undefined): Html {
  if (!text) return html``;
  return kind === 'error' ? html`<p class="error" role="alert">${text}</p>` : html`<p class="notice" role="status">${text}</p>`;
}

/** Label and value pairs, as a description list the stylesheet lays out in two columns, named for assistive technology. */
export function facts(label: string, pairs: ReadonlyArray<readonly [label: string, value: Html | string]>): Html {
  return html`<dl class="facts" aria-label="${label}">
    ${pairs.map(
      ([term, value]) =>
        html`<dt>${term}</dt>
          <dd>${value}</dd>`,
    )}
  </dl>`;
}

/** A link to the same page with some query parameters changed, the others kept. */
export function withQuery(path: string, query: URLSearchParams, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') next.delete(name);
    else next.set(name, value);
  }
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}
