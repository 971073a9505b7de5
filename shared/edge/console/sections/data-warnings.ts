// The product page's data warnings: a recommendation built on data that looks wrong says "check the data", and why.
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { type Html, html } from '#edge/console/html.ts';

/** Each warning by its code and message, above the recommendation; nothing for a product whose data is in line. */
export function dataWarningsSection(recommendation: Recommendation): Html {
  const warnings = recommendation.warnings ?? [];
  if (warnings.length === 0) return html``;
  return html`<section class="data-warnings" role="alert" aria-labelledby="data-warnings-heading">
    <h2 id="data-warnings-heading">Check the data</h2>
    <p>
      The last batch brought values that look wrong, so this recommendation is held: it is in no ranking of expected impact nor in bulk
      approval, and approving it asks you to confirm each warning. It clears when a later batch brings the values back in line.
    </p>
    <ul>
      ${warnings.map((warning) => html`<li><code>${warning.code}</code>: ${warning.message}</li>`)}
    </ul>
  </section>`;
}
