// The results page of a bulk approval round: each line approved, refused or not attempted, the same for every send of one confirmation, and the lines not approved kept ticked for one more review.
import type { BulkResult } from '#shared/approvals/bulk-round.ts';
import { alert, moment, money } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { PageView } from '#edge/console/page.ts';
import { listLink, productPath } from './recommendation-paths.ts';

/** What became of one SKU's approval, in the words and colour of the list's approval states. */
function resultText(result: BulkResult): { readonly text: Html | string; readonly status: string } {
  if (result.outcome === 'refused') return { text: html`Not approved: ${result.reason}`, status: 'failed' };
  if (result.outcome === 'not_attempted') return { text: html`Not attempted: ${result.reason}`, status: 'pending' };
  const again = result.replayed ? ' This confirmation was sent again: nothing was published twice.' : '';
  if (result.status === 'waiting') {
    return { text: html`Waiting for a second approver until ${moment(result.waitingUntil)}.${again}`, status: 'pending' };
  }
  const tasks = result.writebacks;
  const second = result.seconded ? ' as the second approver' : '';
  const published = tasks === 0 ? 'no connector writes back' : `${tasks} pending write-back${tasks === 1 ? '' : 's'}`;
  return { text: `Approved${second}: ${published}.${again}`, status: 'applied' };
}

const products = (count: number) => `${count} product${count === 1 ? '' : 's'}`;

/** The round's summary: how many of each outcome, the lines not approved said first. */
function summary(results: readonly BulkResult[], repeated: boolean): Html {
  const refused = results.filter((result) => result.outcome === 'refused').length;
  const skipped = results.filter((result) => result.outcome === 'not_attempted').length;
  const approved = results.length - refused - skipped;
  const notices = [refused > 0 ? `${products(refused)} refused` : '', skipped > 0 ? `${products(skipped)} not attempted` : ''].filter(
    Boolean,
  );
  const repeat = repeated
    ? alert('notice', 'This confirmation was sent before: these are the results of that send. Nothing was approved again.')
    : html``;
  return html`${repeat}
  ${
    notices.length > 0
      ? alert('error', `${notices.join(' and ')}: the reason is beside each below. They stay ticked to review again.`)
      : alert('notice', `All ${approved} ${approved === 1 ? 'product was' : 'products were'} approved.`)
  }`;
}

/**
 * The lines not approved, ticked, in a form that reviews them again: the confirmation step then shows each at its
 * recommendation now, under a new token.
 */
function reviewAgain(results: readonly BulkResult[], back: string, csrfToken: string): Html {
  const again = results.filter((result) => result.outcome !== 'approved');
  if (again.length === 0) return html``;
  return html`<form class="review-again" method="post" action="${listLink('')}">
    <input type="hidden" name="_csrf" value="${csrfToken}" />
    <input type="hidden" name="_action" value="review" />
    <input type="hidden" name="back" value="${back}" />
    <fieldset>
      <legend>Not approved</legend>
      ${again.map(
        (result, index) =>
          html`<label class="choice" for="again-${index}"
            ><input id="again-${index}" name="pick.${index}" type="checkbox" value="${result.sku}" checked /> ${result.sku}</label
          >`,
      )}
    </fieldset>
    <button type="submit">Review the ${again.length} ticked again</button>
  </form>`;
}

export interface ResultsInput {
  readonly results: readonly BulkResult[];
  /** An earlier send of the same confirmation made these results: this send approved nothing. */
  readonly repeated: boolean;
  readonly back: string;
  readonly csrfToken: string;
}

/** The results, one row per SKU, each approved, refused or not attempted. */
export function bulkResultsView({ results, repeated, back, csrfToken }: ResultsInput): PageView {
  const approved = results.filter((result) => result.outcome === 'approved').length;
  const body = html`<p class="breadcrumb"><a href="${listLink(back)}">Recommendations</a></p>
    <h1>Bulk approval: ${approved} of ${results.length} approved</h1>
    ${summary(results, repeated)}
    <div class="table-wrap" tabindex="0" role="region" aria-label="Results of the bulk approval">
      <table class="data bulk-results">
        <caption>
          One approval per product
        </caption>
        <thead>
          <tr>
            <th scope="col">SKU</th>
            <th scope="col" class="number">Price</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          ${results.map((result) => {
            const { text, status } = resultText(result);
            const price = result.outcome === 'approved' ? money(result.priceCents, result.currency) : '—';
            return html`<tr>
              <th scope="row"><a href="${productPath(result.sku)}">${result.sku}</a></th>
              <td class="number">${price}</td>
              <td class="status status-${status}">${text}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    ${reviewAgain(results, back, csrfToken)}
    <p><a href="${listLink(back)}">Back to the list</a>: each product's approval state is in its column.</p>`;
  return { title: 'Bulk approval results · Recommendations', body };
}
