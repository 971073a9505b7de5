// Webhook endpoints from the console, through the local stack: created (the secret shown once, on the endpoint's own page after the redirect), edited and test-sent with the session's CSRF token; an SSRF target refused beside its field.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleRole } from '#edge/console/page.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { listAttempts, listDeliveries } from '#shared/webhooks/attempt-log.ts';
import { getEndpoint, listEndpoints } from '#shared/webhooks/endpoints.ts';
import { revealedSecret } from './console-reveals.ts';
import { ConsoleBrowser, csrfTokenOf } from './console-session.ts';
import { newWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

const WEBHOOKS = '/console/settings/webhooks';
const receivers: Receiver[] = [];
let people = 0;

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function personOf(workspaceId: string, roles: readonly ConsoleRole[]) {
  const user = await createConsoleUser({
    workspaceId,
    email: `hooks-${Date.now()}-${people++}@example.com`,
    roles,
    password: `chosen-${randomUUID()}`,
  });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  return browser;
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** Waits, however long the worker takes, until the condition holds; the test's own timeout bounds it. */
async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const SSRF_URL = 'https://169.254.169.254/latest/meta-data/';

describe('webhook endpoints in the console', { timeout: 90_000 }, () => {
  it('creates an endpoint with the session’s token and shows its secret once; refuses a post without the token', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await personOf(workspaceId, ['admin']);
    const target = await receiver();
    const form = { _action: 'create', url: target.url, events: ['price.approved', 'batch.failed'], description: 'ERP', enabled: 'yes' };

    const forged = await browser.request('POST', WEBHOOKS, form);
    expect(forged.status).toBe(403);
    expect(await listEndpoints(workspaceId)).toEqual([]);

    const created = await browser.submitAndFollow(WEBHOOKS, form);
    expect(created.posted.status).toBe(303);
    const [endpoint] = await listEndpoints(workspaceId);
    expect(endpoint).toMatchObject({ url: target.url, eventTypes: ['price.approved', 'batch.failed'], description: 'ERP', enabled: true });
    const path = `${WEBHOOKS}/${endpoint?.endpointId}`;
    expect(created.posted.headers.get('location')).toBe(path);
    expect(created.page?.status).toBe(200);
    const secret = revealedSecret(created.page, 'new-secret') ?? '';
    expect(secret).toMatch(/^whsec_/);
    // Shown once: the endpoint's page, opened again, and the list no longer show it.
    const reloaded = await browser.get(path);
    expect(reloaded.status).toBe(200);
    expect(reloaded.text).not.toContain(secret);
    const again = await browser.get(WEBHOOKS);
    expect(again.text).toContain(target.url);
    expect(again.text).not.toContain(secret);
  });

  it('refuses an SSRF target beside the URL field, keeps what was typed, and creates nothing', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await personOf(workspaceId, ['admin']);
    const refused = await browser.submit(WEBHOOKS, { _action: 'create', url: SSRF_URL, events: 'price.approved', enabled: 'yes' });
    expect(refused.status).toBe(422);
    const field = /<input\s+id="endpoint-url"[^>]*>/.exec(refused.text)?.[0] ?? '';
    expect(field).toContain('aria-invalid="true"');
    expect(field).toContain('aria-describedby="endpoint-url-error endpoint-url-hint"');
    expect(field).toContain(`value="${SSRF_URL}"`);
    expect(refused.text).toMatch(/<p class="error field-error" role="alert" id="endpoint-url-error">Invalid url: [^<]+<\/p>/);
    expect(await listEndpoints(workspaceId)).toEqual([]);
  });

  it('refuses creating or changing endpoints to a user without the admin role, and shows them no endpoint page', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await personOf(workspaceId, ['pricing', 'finance']);
    const page = await browser.get(WEBHOOKS);
    expect(page.text).not.toContain('Create endpoint</button>');
    const answer = await browser.request('POST', WEBHOOKS, {
      _csrf: csrfTokenOf(page.text),
      _action: 'create',
      url: 'https://hooks.example.com/x',
      events: 'price.approved',
    });
    expect(answer.status).toBe(403);
    expect(await listEndpoints(workspaceId)).toEqual([]);
    expect((await browser.get(`${WEBHOOKS}/we_${'a'.repeat(22)}`)).status).toBe(403);
  });

  it('edits the URL, events and switch; an SSRF URL on edit is refused beside its field and changes nothing', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await personOf(workspaceId, ['admin']);
    const [first, second] = [await receiver(), await receiver()];
    await browser.submit(WEBHOOKS, { _action: 'create', url: first.url, events: 'price.approved', enabled: 'yes' });
    const [endpoint] = await listEndpoints(workspaceId);
    const path = `${WEBHOOKS}/${endpoint?.endpointId}`;

    const saved = await browser.submit(path, {
      _action: 'update',
      url: second.url,
      events: ['batch.drained', 'batch.failed'],
      description: '',
    });
    expect(saved.status).toBe(303);
    expect(await getEndpoint(workspaceId, endpoint?.endpointId ?? '')).toMatchObject({
      url: second.url,
      eventTypes: ['batch.drained', 'batch.failed'],
      enabled: false,
      status: 'disabled',
    });

    const refused = await browser.submit(path, { _action: 'update', url: SSRF_URL, events: 'batch.failed', enabled: 'yes' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="endpoint-url-error">Invalid url:');
    expect((await getEndpoint(workspaceId, endpoint?.endpointId ?? ''))?.url).toBe(second.url);

    // A disabled endpoint is sent no test: the refusal sits beside the button.
    const test = await browser.submit(path, { _action: 'test' });
    expect(test.status).toBe(422);
    expect(test.text).toContain('id="test-error">The endpoint is disabled');
  });

  it('sends a test event to the endpoint alone, and shows the attempt’s status, answer and payload', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await personOf(workspaceId, ['admin']);
    const target = await receiver();
    const bystander = await receiver();
    target.answerEvery(503);
    const created = await browser.submitAndFollow(WEBHOOKS, {
      _action: 'create',
      url: target.url,
      events: 'price.approved',
      enabled: 'yes',
    });
    target.verifyWith(revealedSecret(created.page, 'new-secret') ?? '');
    await browser.submit(WEBHOOKS, { _action: 'create', url: bystander.url, events: 'price.approved', enabled: 'yes' });
    const endpoint = (await listEndpoints(workspaceId)).find((each) => each.url === target.url);
    const path = `${WEBHOOKS}/${endpoint?.endpointId}`;

    const forged = await browser.request('POST', path, { _action: 'test' });
    expect(forged.status).toBe(403);
    const sent = await browser.submit(path, { _action: 'test' });
    expect(sent.status).toBe(303);
    const location = sent.headers.get('location') ?? '';
    const eventId = /event=(evt_\w+)/.exec(location)?.[1] ?? '';
    expect(eventId).not.toBe('');

    await target.waitFor((requests) => requests.some((request) => request.webhookId === eventId));
    const [request] = target.requests.filter((each) => each.webhookId === eventId);
    expect(request?.verifyError).toBeUndefined();
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint?.endpointId } });
    const attempts = await until(
      () => listAttempts(workspaceId, endpoint?.endpointId ?? '', eventId),
      (logged) => logged.length > 0,
    );
    // Tried once: a failed test is parked at once, not retried for days.
    expect(attempts).toMatchObject([{ seq: 1, status: 503 }]);
    const [delivery] = await until(
      async () => (await listDeliveries(workspaceId, endpoint?.endpointId ?? '')).deliveries,
      (deliveries) => deliveries[0]?.status === 'parked',
    );
    expect(delivery).toMatchObject({ eventId, eventType: 'webhook.test', attempts: 1 });

    const page = await browser.get(location);
    expect(page.status).toBe(200);
    expect(page.text).toContain('HTTP <strong>503</strong>');
    expect(page.text).toContain('refused with 503');
    expect(page.text).toContain(`&quot;id&quot;: &quot;${eventId}&quot;`);
    // The other endpoint, subscribed to the same events, received nothing.
    expect(bystander.requests).toEqual([]);
  });
});
