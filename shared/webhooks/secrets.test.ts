import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  dataKey,
  dataKeyFileEnvironmentName,
  dataKeySecretIdEnvironmentName,
  deriveDataKey,
  newSigningSecret,
  openSecret,
  openText,
  PREVIOUS_SECRET_ACCEPTED_MS,
  sealSecret,
  sealText,
  signingSecrets,
} from './secrets.ts';

// Secrets Manager as the functions on AWS reach it: each call to GetSecretValue is counted.
const secretsManager = vi.hoisted(() => ({ reads: [] as unknown[] }));
vi.mock('@aws-sdk/client-secrets-manager', () => ({
  GetSecretValueCommand: class {
    readonly input: { SecretId: string };
    constructor(input: { SecretId: string }) {
      this.input = input;
    }
  },
  SecretsManagerClient: class {
    async send(command: { input: { SecretId: string } }) {
      secretsManager.reads.push(command.input.SecretId);
      return { SecretString: 'm'.repeat(64) };
    }
    destroy() {}
  },
}));

const owner = { workspaceId: 'ws_A', endpointId: 'we_1' };
const key = deriveDataKey('x'.repeat(64));

describe('signing secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, different each time', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('sign messages that the standardwebhooks library verifies', () => {
    const secret = newSigningSecret();
    const webhook = new Webhook(secret);
    const timestamp = new Date();
    const payload = JSON.stringify({ type: 'price.approved' });
    const signature = webhook.sign('msg_1', timestamp, payload);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(new Webhook(secret).verify(payload, headers)).toEqual({ type: 'price.approved' });
  });
});

describe('sealing', () => {
  it('round-trips a secret and never stores it readable', () => {
    const secret = newSigningSecret();
    const sealed = sealSecret(key, secret, owner);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(openSecret(key, sealed, owner)).toBe(secret);
  });

  it('seals the same secret differently each time (a fresh IV)', () => {
    const secret = newSigningSecret();
    expect(sealSecret(key, secret, owner)).not.toBe(sealSecret(key, secret, owner));
  });

  it('refuses to open under another key, for another endpoint, or when tampered with', () => {
    const sealed = sealSecret(key, newSigningSecret(), owner);
    expect(() => openSecret(deriveDataKey('y'.repeat(64)), sealed, owner)).toThrow();
    expect(() => openSecret(key, sealed, { ...owner, endpointId: 'we_2' })).toThrow();
    expect(() => openSecret(key, sealed, { ...owner, workspaceId: 'ws_B' })).toThrow();
    const [version, iv, tag, body] = sealed.split('.') as [string, string, string, string];
    const flipped = `${body.slice(0, -2)}${body.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(() => openSecret(key, [version, iv, tag, flipped].join('.'), owner)).toThrow();
  });

  it('refuses key material too short to be a key', () => {
    expect(() => deriveDataKey('short')).toThrow(/shorter than 32/);
  });
});

describe('the data key and the rotation window', () => {
  const saved = { file: process.env[dataKeyFileEnvironmentName], secretId: process.env[dataKeySecretIdEnvironmentName] };
  afterEach(() => {
    for (const [name, value] of [
      [dataKeyFileEnvironmentName, saved.file],
      [dataKeySecretIdEnvironmentName, saved.secretId],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  function useKeyFile(material: string): void {
    const file = join(mkdtempSync(join(tmpdir(), 'webhook-key-')), 'webhook-secrets.key');
    writeFileSync(file, `${material}\n`, { mode: 0o600 });
    delete process.env[dataKeySecretIdEnvironmentName];
    process.env[dataKeyFileEnvironmentName] = file;
  }

  it('reads local mode’s key from its file, once', async () => {
    useKeyFile('k'.repeat(64));
    const first = await dataKey();
    expect(first.equals(deriveDataKey('k'.repeat(64)))).toBe(true);
    expect(await dataKey()).toBe(first);
  });

  it('reads the key from the stack’s Secrets Manager secret once per process, and prefers it to a file', async () => {
    useKeyFile('f'.repeat(64));
    process.env[dataKeySecretIdEnvironmentName] = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:WebhookDataKey-AbCdEf';
    const first = await dataKey();
    expect(first.equals(deriveDataKey('m'.repeat(64)))).toBe(true);
    expect(await dataKey()).toBe(first);
    expect(secretsManager.reads).toEqual([process.env[dataKeySecretIdEnvironmentName]]);
  });

  it('says which variable to set when no key is configured', () => {
    delete process.env[dataKeySecretIdEnvironmentName];
    delete process.env[dataKeyFileEnvironmentName];
    expect(() => dataKey()).toThrow(/WEBHOOK_SECRETS_KEY_SECRET_ID/);
  });

  it('signs with the current secret, and with the previous one for 24 hours after a rotation', async () => {
    useKeyFile('r'.repeat(64));
    const loaded = await dataKey();
    const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
    const rotatedAt = Date.parse('2026-11-24T10:00:00Z');
    const endpoint = {
      ...owner,
      secret: sealSecret(loaded, newSecret, owner),
      previousSecret: sealSecret(loaded, oldSecret, owner),
      previousSecretExpiresAt: new Date(rotatedAt + PREVIOUS_SECRET_ACCEPTED_MS).toISOString(),
    };
    expect(await signingSecrets(endpoint, rotatedAt)).toEqual([newSecret, oldSecret]);
    expect(await signingSecrets(endpoint, rotatedAt + PREVIOUS_SECRET_ACCEPTED_MS - 1)).toEqual([newSecret, oldSecret]);
    expect(await signingSecrets(endpoint, rotatedAt + PREVIOUS_SECRET_ACCEPTED_MS)).toEqual([newSecret]);
    expect(await signingSecrets({ ...owner, secret: endpoint.secret }, rotatedAt)).toEqual([newSecret]);
  });
});

describe('sealed text', () => {
  it('opens only in the context it was sealed to, and shows nothing of itself sealed', () => {
    const text = '{"secret":"whsec_abc"}';
    const sealed = sealText(key, text, 'idempotent-answer:ws_A:createWebhookEndpoint:digest1');
    expect(sealed).not.toContain('whsec_abc');
    expect(openText(key, sealed, 'idempotent-answer:ws_A:createWebhookEndpoint:digest1')).toBe(text);
    expect(() => openText(key, sealed, 'idempotent-answer:ws_B:createWebhookEndpoint:digest1')).toThrow();
  });
});
