// The API keys page's list: each key by its name and last four, with its scopes, times, status and actions; cards on a phone.
import { isPastRevokeAt } from '#shared/api-keys/authenticate.ts';
import type { ApiKeyRecord } from '#shared/api-keys/schema.ts';
import { LAST_USE_RESOLUTION_MS } from '#shared/api-keys/usage.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { moment } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext } from '#edge/console/page.ts';

export const API_KEYS_PATH = '/console/settings/api-keys';

/** The grace periods a rotation offers, in hours: the old key keeps working this long, so that callers can switch. */
export const graceChoices: ReadonlyArray<{ readonly hours: number; readonly label: string }> = [
  { hours: 0, label: 'Revoke the old key now' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 24 * 7, label: '7 days' },
  { hours: 24 * 30, label: '30 days' },
];

/** How a key is named to a person: its name in quotes, or its id for a key made before keys had names. */
export function keyTitle(key: ApiKeyRecord): string {
  return key.name === undefined ? key.keyId : `“${key.name}”`;
}

/** The key as its owner would recognise it: the family prefix and the last four, or "—" where they were not kept. */
export function maskedKey(key: ApiKeyRecord): string {
  return key.lastFour ? `${key.family}_…${key.lastFour}` : '—';
}

/** To the minute: a revocation is set to the minute, and a card on a phone has little room. */
function minute(iso: string | undefined): string {
  return `${(iso ?? '').slice(0, 16).replace('T', ' ')} UTC`;
}

function status(key: ApiKeyRecord, nowMs: number): Html {
  if (key.revokedAt) return html`<span class="status-bad">revoked ${minute(key.revokedAt)}</span>`;
  if (isPastRevokeAt(key, nowMs)) return html`<span class="status-bad">revoked ${minute(key.revokeAt)}</span>`;
  if (key.revokeAt) return html`<span class="status-warn">active until ${minute(key.revokeAt)}</span>`;
  return html`<span class="status-ok">active</span>`;
}

export function isActive(key: ApiKeyRecord, nowMs: number): boolean {
  return !key.revokedAt && !isPastRevokeAt(key, nowMs);
}

function keyActions(ctx: ConsoleContext, key: ApiKeyRecord): Html {
  if (!ctx.user.roles.includes('admin') || !isActive(key, ctx.nowMs)) return html``;
  const graceId = `grace-${key.keyId}`;
  const title = keyTitle(key);
  return html`<form class="inline" method="post" action="${API_KEYS_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="rotate" />
      <input type="hidden" name="keyId" value="${key.keyId}" />
      <label class="choice" for="${graceId}">Old key works for</label>
      <select id="${graceId}" name="graceHours">
        ${graceChoices.map(
          (choice) => html`<option value="${choice.hours}" ${choice.hours === 24 ? html` selected` : ''}>${choice.label}</option>`,
        )}
      </select>
      <button type="submit" class="secondary" aria-label="Rotate ${title}">Rotate</button>
    </form>
    <form class="inline" method="post" action="${API_KEYS_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="revoke" />
      <input type="hidden" name="keyId" value="${key.keyId}" />
      <button type="submit" class="danger" aria-label="Revoke ${title}">Revoke</button>
    </form>`;
}

function scopesCell(key: ApiKeyRecord, connectorName: ReadonlyMap<string, string>): string {
  const scopes = key.scopes.join(', ') || `none (${key.family})`;
  if (!key.connectorId) return scopes;
  return `${scopes} · connector ${connectorName.get(key.connectorId) ?? ''} (${key.connectorId})`;
}

function keyRow(ctx: ConsoleContext, key: ApiKeyRecord, connectorName: ReadonlyMap<string, string>): Html {
  return html`<tr data-key-id="${key.keyId}">
    <th scope="row">
      ${key.name ?? html`<span class="muted">—</span>`}<br /><code class="muted">${key.keyId}</code
      >${key.rotatedFrom ? html`<br /><span class="muted">rotated from ${key.rotatedFrom}</span>` : ''}
    </th>
    <td data-label="Key"><code>${maskedKey(key)}</code></td>
    <td data-label="Scopes">${scopesCell(key, connectorName)}</td>
    <td data-label="Created (UTC)">${moment(key.createdAt, { nowMs: ctx.nowMs })}</td>
    <td data-label="Last used (UTC)">${key.lastUsedAt ? moment(key.lastUsedAt, { nowMs: ctx.nowMs }) : '—'}</td>
    <td data-label="Status">${status(key, ctx.nowMs)}</td>
    <td class="actions" data-label="Actions">${keyActions(ctx, key)}</td>
  </tr>`;
}

/** The workspace's keys as a table on a wide screen, and a card per key on a phone (console.css, table.keys). */
export function keysTable(ctx: ConsoleContext, keys: readonly ApiKeyRecord[], connectors: readonly Connector[]): Html {
  const connectorName = new Map(connectors.map((connector) => [connector.connectorId, connector.name]));
  // In a region of its own, so that a window too narrow for the rotate and revoke forms scrolls the table, not the page.
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="API keys of the workspace">
    <table class="keys cards">
      <caption class="muted">
        Keys of the workspace, newest first. Last use is kept to within ${LAST_USE_RESOLUTION_MS / 60_000} minutes; "—" where a key has
        none, or was made before it was kept.
      </caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created (UTC)</th>
          <th scope="col">Last used (UTC)</th>
          <th scope="col">Status</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        ${
          keys.length === 0
            ? html`<tr>
                <td colspan="7">No keys yet.</td>
              </tr>`
            : keys.map((key) => keyRow(ctx, key, connectorName))
        }
      </tbody>
    </table>
  </div>`;
}
