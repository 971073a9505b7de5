// Hostile input to the console's key and webhook forms: every refusal is a 422 beside its field, escaped, and writes nothing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import { revealedSecret } from './console-reveals.ts';
import { ConsoleBrowser } from './console-session.ts';
import { workspaceItems, writesBetween } from './hostile-input-support.ts';
import { newWorkspace } from './support.ts';

const KEYS = '/console/settings/api-keys';
const WEBHOOKS = '/console/settings/webhooks';

async function admin(workspaceId: string): Promise<ConsoleBrowser> {
  const user = await createConsoleUser({
    workspaceId,
    email: `hostile-${randomUUID()}@example.com`,
    roles: ['admin'],
    password: `pw-${randomUUID()}`,
  });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  return browser;
}

const hostileNames = [
  '',
  '    ',
  'x'.repeat(65),
  'line\nbreak',
  'nul\u0000byte',
  'escape\u001b[31mred',
  'del\u007f',
  'c1\u0085next',
  'bidi\u202Eevil.exe',
  'zero\u200Bwidth',
  'b\uFEFFom',
];

const hostileUrls = [
  'https://169.254.169.254/latest/meta-data/',
  'https://10.0.0.7/hook',
  'https://[::ffff:127.0.0.1]/x',
  'https://0x7f000001/x',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'ftp://example.com/x',
  'https://user:pass@example.com/x',
  `https://example.com/${'a'.repeat(3000)}`,
  'not a url',
  '',
];

describe('hostile input to the console’s key and webhook forms', { timeout: 120_000 }, () => {
  it('refuses every hostile key name beside the name field, escaped, and issues no key', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await admin(workspaceId);
    const before = await workspaceItems(workspaceId);
    for (const name of hostileNames) {
      const answer = await browser.submit(KEYS, { _action: 'create', name, family: 'pw_live' });
      expect(answer.status, JSON.stringify(name)).toBe(422);
      expect(answer.text, JSON.stringify(name)).toContain('id="key-name-error"');
      expect(answer.text).not.toContain('data-testid="new-key"');
    }
    // Markup in a name is kept, as text: shown escaped, never as markup, on the page that shows the new key.
    const markup = await browser.submitAndFollow(KEYS, { _action: 'create', name: '<img src=x onerror=alert(1)>', family: 'pw_live' });
    expect(markup.posted.status).toBe(303);
    expect(revealedSecret(markup.page, 'new-key')).toMatch(/^pw_live_/);
    expect(markup.page?.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(markup.page?.text).not.toContain('<img src=x');
    const writes = writesBetween(before, await workspaceItems(workspaceId));
    expect(writes.filter((write) => !/APIKEY|SESSION|session|usage|rate/i.test(write))).toEqual([]);
  });

  it('refuses every hostile webhook URL beside the URL field and registers nothing', async () => {
    const { workspaceId } = await newWorkspace();
    const browser = await admin(workspaceId);
    const before = await workspaceItems(workspaceId);
    for (const url of hostileUrls) {
      const answer = await browser.submit(WEBHOOKS, { _action: 'create', url, events: 'price.approved', enabled: 'yes' });
      expect(answer.status, url.slice(0, 80)).toBe(422);
      expect(answer.text, url.slice(0, 80)).toContain('id="endpoint-url-error"');
      expect(answer.text).not.toContain('data-testid="new-secret"');
    }
    for (const events of ['', 'webhook.test', '*', 'price.approved,price.approved', 'batch.unknown']) {
      const answer = await browser.submit(WEBHOOKS, { _action: 'create', url: 'https://hooks.example.com/x', events, enabled: 'yes' });
      expect(answer.status, events).toBe(422);
      expect(answer.text, events).toContain('id="events-error"');
    }
    const writes = writesBetween(before, await workspaceItems(workspaceId));
    expect(writes.filter((write) => /ENDPOINT|webhookEndpoint/i.test(write))).toEqual([]);
  });
});
