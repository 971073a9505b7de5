// Settings → API keys: a workspace's keys, and creating (named; the secret shown once, after the redirect), rotating with a grace period, and revoking them; changes need the admin role.
import { forgetCachedCredentials } from '#shared/api-keys/authenticate.ts';
import {
  checkGrant,
  getWorkspaceApiKey,
  issueApiKey,
  listApiKeys,
  revokeWorkspaceApiKey,
  rotateApiKey,
} from '#shared/api-keys/repository.ts';
import { type ApiKeyRecord, keyFamilies, type KeyFamily, MAX_KEY_NAME_LENGTH, type Scope, scopes } from '#shared/api-keys/schema.ts';
import { listConnectors } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { ApiError } from '#platform/errors.ts';
import { type Html, html } from '#edge/console/html.ts';
import {
  type ActionOutcome,
  type ConsoleContext,
  type ConsolePage,
  type PageView,
  type Reveal,
  revealSection,
} from '#edge/console/page.ts';
import { personOfUser } from '#edge/console/users.ts';
import { type FieldErrors, sentence, textField } from '#edge/console/form-fields.ts';
import { API_KEYS_PATH, graceChoices, isActive, keysTable, keyTitle, maskedKey } from './api-key-list.ts';

export { API_KEYS_PATH, graceChoices } from './api-key-list.ts';

const familyLabels: Readonly<Record<KeyFamily, string>> = {
  svc_live: 'svc_live: the service API (/api/v1)',
  pw_live: 'pw_live: the overview (/v1), live',
  pw_test: 'pw_test: the overview (/v1), sandbox',
};

/** What the confirmation says of the key: the text is built whole, so that no line break falls inside a phrase. */
function revokeWords(key: ApiKeyRecord): string {
  const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
  return [
    `The ${key.family} key ${maskedKey(key)} (${key.keyId})`,
    key.scopes.length > 0 ? `, scopes ${key.scopes.join(', ')}` : '',
    key.connectorId ? `, used by connector ${key.connectorId}` : '',
    `, created ${minute(key.createdAt)} and last used ${key.lastUsedAt ? minute(key.lastUsedAt) : '— (not recorded)'},`,
    ' will be refused by every instance within a minute. This cannot be undone.',
  ].join('');
}

/**
 * The step before a revoke: which key, what stops working, and the one form that revokes it. A revoke cannot be
 * undone, so the row's button only leads here; the confirming POST carries `confirmed` as well as the session's token.
 */
function revokeConfirmation(ctx: ConsoleContext, key: ApiKeyRecord): Html {
  return html`<section class="confirm-revoke" aria-labelledby="revoke-heading">
    <h2 id="revoke-heading" tabindex="-1">Revoke ${keyTitle(key)}?</h2>
    <p>${revokeWords(key)}</p>
    <form method="post" action="${API_KEYS_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="revoke" />
      <input type="hidden" name="keyId" value="${key.keyId}" />
      <input type="hidden" name="confirmed" value="yes" />
      <button type="submit" class="danger">Yes, revoke ${keyTitle(key)}</button>
      <a href="${API_KEYS_PATH}">Keep the key</a>
    </form>
  </section>`;
}

/** What the create form was sent with, shown again beside its errors so that nothing typed is lost. */
interface CreateAttempt {
  readonly name?: string;
  readonly errors: FieldErrors;
}

function createForm(ctx: ConsoleContext, connectors: readonly Connector[], attempt: CreateAttempt | undefined): Html {
  if (!ctx.user.roles.includes('admin')) return html`<p class="muted">Creating, rotating and revoking keys needs the admin role.</p>`;
  const formError = attempt?.errors.form;
  return html`<form method="post" action="${API_KEYS_PATH}">
    <fieldset ${formError ? html`aria-describedby="create-key-error"` : ''}>
      <legend>New key</legend>
      ${formError ? html`<p class="error" role="alert" id="create-key-error">${formError}</p>` : ''}
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="create" />
      ${textField({
        id: 'key-name',
        name: 'name',
        label: 'Name',
        value: attempt?.name,
        error: attempt?.errors.name,
        hint: `What the key is for, such as "ERP price sync": shown in this list and when it is revoked. At most ${MAX_KEY_NAME_LENGTH} characters.`,
        required: true,
        maxLength: MAX_KEY_NAME_LENGTH,
        autocomplete: 'off',
        autofocus: formError !== undefined,
      })}
      <label for="family">Family</label>
      <select id="family" name="family">
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
  /** An error of the page's forms as a whole (a rotation or a revoke refused). */
  readonly error?: string;
  /** A create refused: what was sent, and the errors by field. */
  readonly attempt?: CreateAttempt;
  /** A key whose revoke waits for its confirmation. */
  readonly revoking?: ApiKeyRecord;
}

/** The page's body: pure, so that what it shows to whom is unit-tested. */
export function apiKeysView({ ctx, keys, connectors, error, attempt, revoking }: KeysViewInput): PageView {
  const body = html`<h1>API keys</h1>
    <p>The workspace's keys. A key's secret is shown once, when it is created; the service keeps only its hash.</p>
    ${revoking ? revokeConfirmation(ctx, revoking) : ''} ${revealSection(ctx.reveal)}
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''} ${keysTable(ctx, keys, connectors)}
    <h2>Create a key</h2>
    ${createForm(ctx, connectors, attempt)}`;
  return { title: 'API keys', body };
}

async function view(ctx: ConsoleContext, extra: Pick<KeysViewInput, 'error' | 'attempt' | 'revoking'> = {}): Promise<PageView> {
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

/** A key just made, for the page to show once after the redirect; its id goes in the text, where a phone can wrap it. */
function newKeyReveal(issued: { readonly key: string; readonly record: ApiKeyRecord }, advice: string): Reveal {
  const heading = issued.record.name === undefined ? 'New key' : `New key “${issued.record.name}”`;
  return { kind: 'new-key', heading, advice, secret: issued.key };
}

/** A time to the minute, as the list shows when a key stops working. */
function minuteOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
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
        const refused = async (errors: FieldErrors): Promise<ActionOutcome> => ({
          kind: 'render',
          status: 422,
          view: await view(ctx, { attempt: { name: form.name, errors } }),
        });
        if (
          !(keyFamilies as readonly string[]).includes(family) ||
          chosen.some((scope) => !(scopes as readonly string[]).includes(scope))
        ) {
          return refused({ form: 'Choose a family and scopes from the lists.' });
        }
        const grant = {
          workspaceId: ctx.user.workspaceId,
          name: form.name ?? '',
          family,
          scopes: chosen as Scope[],
          connectorId: form.connectorId || undefined,
          createdBy: personOfUser(ctx.user),
        };
        try {
          checkGrant(grant);
          const issued = await issueApiKey(grant, new Date(ctx.nowMs));
          return {
            kind: 'redirect',
            location: API_KEYS_PATH,
            reveal: newKeyReveal(
              issued,
              `Its id is ${issued.keyId}. Copy it now: it is shown this once, and the service keeps only its hash.`,
            ),
          };
        } catch (error) {
          if (error instanceof ApiError && error.status < 500) {
            return refused(error.param === 'name' ? { name: sentence(error.message) } : { form: sentence(error.message) });
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
        let issued: Awaited<ReturnType<typeof rotateApiKey>>;
        try {
          issued = await rotateApiKey(ctx.user.workspaceId, keyId, graceHours * 3_600_000, new Date(ctx.nowMs), personOfUser(ctx.user));
        } catch (error) {
          // A key rotated or revoked meanwhile (a second tab, another admin, a double click): the list as it now stands,
          // with why, so that the admin sees the key that replaced it. An unknown key stays a 404, as for a revoke.
          if (error instanceof ApiError && error.status < 500 && error.status !== 404) {
            return { kind: 'render', status: 422, view: await view(ctx, { error: sentence(error.message) }) };
          }
          throw error;
        }
        // The old key's revocation, now or at the end of its grace period, holds in this process at once, as a revoke does.
        forgetCachedCredentials();
        const oldKeyEnds = graceHours === 0 ? 'is revoked now' : `works until ${minuteOf(ctx.nowMs + graceHours * 3_600_000)}`;
        return {
          kind: 'redirect',
          location: API_KEYS_PATH,
          reveal: newKeyReveal(
            issued,
            `Its id is ${issued.keyId}; it replaces ${keyId}, which ${oldKeyEnds}. Copy it now: it is shown this once, and the service keeps only its hash.`,
          ),
        };
      },
    },
    revoke: {
      role: 'admin',
      async run(ctx, form) {
        if (form.confirmed !== 'yes') return { kind: 'show', view: await confirmingView(ctx, form.keyId ?? '') };
        const revoking = await getWorkspaceApiKey(ctx.user.workspaceId, form.keyId ?? '');
        const revoked = await revokeWorkspaceApiKey(ctx.user.workspaceId, form.keyId ?? '', new Date(ctx.nowMs));
        // Where the API's handlers share this process (local mode), they refuse the key at once; deployed functions
        // keep their own caches, which let it go within AUTH_CACHE_MS.
        forgetCachedCredentials();
        return {
          kind: 'redirect',
          location: API_KEYS_PATH,
          notice: `Revoked ${revoking ? `${keyTitle(revoking)} (${revoked.keyId})` : revoked.keyId}. Every instance refuses it within a minute.`,
        };
      },
    },
  },
};
