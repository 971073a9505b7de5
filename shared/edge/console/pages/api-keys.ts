// Settings → API keys: a workspace's keys, and creating (shown once), rotating with a grace period, and revoking them; changes need the admin role.
import { forgetCachedCredentials, isPastRevokeAt } from '#shared/api-keys/authenticate.ts';
import { checkGrant, issueApiKey, listApiKeys, revokeWorkspaceApiKey, rotateApiKey } from '#shared/api-keys/repository.ts';
import { type ApiKeyRecord, keyFamilies, type KeyFamily, type Scope, scopes } from '#shared/api-keys/schema.ts';
import { listConnectors } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { ApiError } from '#platform/errors.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView } from '#edge/console/page.ts';

export const API_KEYS_PATH = '/console/settings/api-keys';

/** The grace periods a rotation offers, in hours: the old key keeps working this long, so that callers can switch. */
export const graceChoices: ReadonlyArray<{ readonly hours: number; readonly label: string }> = [
  { hours: 0, label: 'Revoke the old key now' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 24 * 7, label: '7 days' },
  { hours: 24 * 30, label: '30 days' },
];

const familyLabels: Readonly<Record<KeyFamily, string>> = {
  svc_live: 'svc_live: the service API (/api/v1)',
  pw_live: 'pw_live: the overview (/v1), live',
  pw_test: 'pw_test: the overview (/v1), sandbox',
};

function status(key: ApiKeyRecord, nowMs: number): Html {
  if (key.revokedAt) return html`<span class="status-bad">revoked ${key.revokedAt.slice(0, 16).replace('T', ' ')} UTC</span>`;
  if (isPastRevokeAt(key, nowMs)) return html`<span class="status-bad">revoked ${key.revokeAt?.slice(0, 16).replace('T', ' ')} UTC</span>`;
  if (key.revokeAt) return html`<span class="status-warn">active until ${key.revokeAt.slice(0, 16).replace('T', ' ')} UTC</span>`;
  return html`<span class="status-ok">active</span>`;
}

function isActive(key: ApiKeyRecord, nowMs: number): boolean {
  return !key.revokedAt && !isPastRevokeAt(key, nowMs);
}

function keyActions(ctx: ConsoleContext, key: ApiKeyRecord): Html {
  if (!ctx.user.roles.includes('admin') || !isActive(key, ctx.nowMs)) return html``;
  const graceId = `grace-${key.keyId}`;
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
      <button type="submit" class="secondary" aria-label="Rotate ${key.keyId}">Rotate</button>
    </form>
    <form class="inline" method="post" action="${API_KEYS_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="revoke" />
      <input type="hidden" name="keyId" value="${key.keyId}" />
      <button type="submit" class="danger" aria-label="Revoke ${key.keyId}">Revoke</button>
    </form>`;
}

/**
 * The step before a revoke: which key, what stops working, and the one form that revokes it. A revoke cannot be
 * undone, so the row's button only leads here; the confirming POST carries `confirmed` as well as the session's token.
 */
function revokeConfirmation(ctx: ConsoleContext, key: ApiKeyRecord): Html {
  return html`<section class="confirm-revoke" aria-labelledby="revoke-heading">
    <h2 id="revoke-heading" tabindex="-1">Revoke ${key.keyId}?</h2>
    <p>
      The ${key.family} key <code>${key.keyId}</code>${key.scopes.length > 0 ? ` (${key.scopes.join(', ')})` : ''}${
        key.connectorId ? `, used by connector ${key.connectorId},` : ''
      }
      created ${key.createdAt.slice(0, 16).replace('T', ' ')} UTC, will be refused by every instance within a minute. This cannot be undone.
    </p>
    <form method="post" action="${API_KEYS_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="revoke" />
      <input type="hidden" name="keyId" value="${key.keyId}" />
      <input type="hidden" name="confirmed" value="yes" />
      <button type="submit" class="danger">Yes, revoke ${key.keyId}</button>
      <a href="${API_KEYS_PATH}">Keep the key</a>
    </form>
  </section>`;
}

function createForm(ctx: ConsoleContext, connectors: readonly Connector[], error: string | undefined): Html {
  if (!ctx.user.roles.includes('admin')) return html`<p class="muted">Creating, rotating and revoking keys needs the admin role.</p>`;
  return html`<form method="post" action="${API_KEYS_PATH}">
    <fieldset ${error ? html`aria-describedby="create-key-error"` : ''}>
      <legend>New key</legend>
      ${error ? html`<p class="error" role="alert" id="create-key-error">${error}</p>` : ''}
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="create" />
      <label for="family">Family</label>
      <select id="family" name="family" ${error ? html`autofocus` : ''}>
        ${keyFamilies.map((family) => html`<option value="${family}">${familyLabels[family]}</option>`)}
      </select>
      <fieldset>
        <legend>Scopes (svc_live keys only)</legend>
        ${scopes.map((scope) => html`<label class="choice"><input type="checkbox" name="scopes" value="${scope}" /> ${scope}</label>`)}
      </fieldset>
      <label for="connector">Connector (for a key with the connector scope)</label>
      <select id="connector" name="connectorId">
        <option value="">None</option>
        ${connectors.map(
          (connector) => html`<option value="${connector.connectorId}">${connector.name} (${connector.connectorId})</option>`,
        )}
      </select>
      <div class="actions"><button type="submit">Create key</button></div>
    </fieldset>
  </form>`;
}

interface KeysViewInput {
  readonly ctx: ConsoleContext;
  readonly keys: readonly ApiKeyRecord[];
  readonly connectors: readonly Connector[];
  /** A key just made, shown this once. */
  readonly created?: { readonly keyId: string; readonly key: string; readonly replaces?: string };
  readonly error?: string;
  /** A key whose revoke waits for its confirmation. */
  readonly revoking?: ApiKeyRecord;
}

/** The page's body: pure, so that what it shows to whom is unit-tested. */
export function apiKeysView({ ctx, keys, connectors, created, error, revoking }: KeysViewInput): PageView {
  const connectorName = new Map(connectors.map((connector) => [connector.connectorId, connector.name]));
  const body = html`<h1>API keys</h1>
    <p>The workspace's keys. A key's secret is shown once, when it is created; the service keeps only its hash.</p>
    ${revoking ? revokeConfirmation(ctx, revoking) : ''}
    ${
      created
        ? html`<section class="notice" aria-labelledby="new-key-heading">
            <h2 id="new-key-heading">New key ${created.keyId}</h2>
            <p>${created.replaces ? `It replaces ${created.replaces}. ` : ''}Copy it now: it is shown this once.</p>
            <p class="secret" data-testid="new-key">${created.key}</p>
          </section>`
        : ''
    }
    <table>
      <caption class="muted">
        Keys of the workspace, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Family</th>
          <th scope="col">Scopes</th>
          <th scope="col">Connector</th>
          <th scope="col">Created</th>
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
            : keys.map(
                (key) =>
                  html`<tr data-key-id="${key.keyId}">
                    <th scope="row">
                      <code>${key.keyId}</code
                      >${key.rotatedFrom ? html`<br /><span class="muted">rotated from ${key.rotatedFrom}</span>` : ''}
                    </th>
                    <td>${key.family}</td>
                    <td>${key.scopes.join(', ') || '—'}</td>
                    <td>${key.connectorId ? `${connectorName.get(key.connectorId) ?? ''} (${key.connectorId})` : '—'}</td>
                    <td>${key.createdAt.slice(0, 16).replace('T', ' ')} UTC</td>
                    <td>${status(key, ctx.nowMs)}</td>
                    <td>${keyActions(ctx, key)}</td>
                  </tr>`,
              )
        }
      </tbody>
    </table>
    <h2>Create a key</h2>
    ${createForm(ctx, connectors, error)}`;
  return { title: 'API keys', body };
}

async function view(ctx: ConsoleContext, extra: Pick<KeysViewInput, 'created' | 'error' | 'revoking'> = {}): Promise<PageView> {
  const [keys, connectors] = await Promise.all([listApiKeys(ctx.user.workspaceId), listConnectors(ctx.user.workspaceId)]);
  return apiKeysView({ ctx, keys, connectors, ...extra });
}

/** The page asking to confirm a revoke: the key must be a live one of this workspace, as the revoke itself requires. */
async function confirmingView(ctx: ConsoleContext, keyId: string): Promise<PageView> {
  const [keys, connectors] = await Promise.all([listApiKeys(ctx.user.workspaceId), listConnectors(ctx.user.workspaceId)]);
  const revoking = keys.find((key) => key.keyId === keyId);
  if (!revoking) throw new ApiError('not_found', 'No API key with this id in this workspace.');
  if (!isActive(revoking, ctx.nowMs)) return apiKeysView({ ctx, keys, connectors, error: `${keyId} is revoked already.` });
  return apiKeysView({ ctx, keys, connectors, revoking });
}

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export const apiKeysPage: ConsolePage = {
  path: API_KEYS_PATH,
  nav: 'API keys',
  read: (ctx) => view(ctx),
  actions: {
    create: {
      role: 'admin',
      async run(ctx, form) {
        const family = form.family as KeyFamily;
        const chosen = listOf(form.scopes);
        if (
          !(keyFamilies as readonly string[]).includes(family) ||
          chosen.some((scope) => !(scopes as readonly string[]).includes(scope))
        ) {
          return { kind: 'render', status: 422, view: await view(ctx, { error: 'Choose a family and scopes from the lists.' }) };
        }
        const grant = {
          workspaceId: ctx.user.workspaceId,
          family,
          scopes: chosen as Scope[],
          connectorId: form.connectorId || undefined,
        };
        try {
          checkGrant(grant);
          const issued = await issueApiKey(grant, new Date(ctx.nowMs));
          return { kind: 'show', view: await view(ctx, { created: { keyId: issued.keyId, key: issued.key } }) };
        } catch (error) {
          if (error instanceof ApiError && error.status < 500) {
            return { kind: 'render', status: 422, view: await view(ctx, { error: sentence(error.message) }) };
          }
          throw error;
        }
      },
    },
    rotate: {
      role: 'admin',
      async run(ctx, form) {
        const graceHours = Number(form.graceHours);
        if (!graceChoices.some((choice) => choice.hours === graceHours)) {
          return { kind: 'render', status: 422, view: await view(ctx, { error: 'Choose a grace period from the list.' }) };
        }
        const keyId = form.keyId ?? '';
        const issued = await rotateApiKey(ctx.user.workspaceId, keyId, graceHours * 3_600_000, new Date(ctx.nowMs));
        // The old key's revocation, now or at the end of its grace period, holds in this process at once, as a revoke does.
        forgetCachedCredentials();
        return { kind: 'show', view: await view(ctx, { created: { keyId: issued.keyId, key: issued.key, replaces: keyId } }) };
      },
    },
    revoke: {
      role: 'admin',
      async run(ctx, form) {
        if (form.confirmed !== 'yes') return { kind: 'show', view: await confirmingView(ctx, form.keyId ?? '') };
        const revoked = await revokeWorkspaceApiKey(ctx.user.workspaceId, form.keyId ?? '', new Date(ctx.nowMs));
        // Where the API's handlers share this process (local mode), they refuse the key at once; deployed functions
        // keep their own caches, which let it go within AUTH_CACHE_MS.
        forgetCachedCredentials();
        return {
          kind: 'redirect',
          location: API_KEYS_PATH,
          notice: `Revoked ${revoked.keyId}. Every instance refuses it within a minute.`,
        };
      },
    },
  },
};

function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return text.endsWith('.') ? text : `${text}.`;
}
