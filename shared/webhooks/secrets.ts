// Webhook signing secrets: minted as Standard Webhooks expects, shown once, kept only sealed (AES-256-GCM under the data key).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** 32 random bytes: Standard Webhooks takes 24 to 64; 256 bits match the HMAC-SHA256 key size. */
export const SIGNING_SECRET_BYTES = 32;
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** After a rotation the previous secret still signs (as a second signature) for this long. */
export const PREVIOUS_SECRET_ACCEPTED_MS = 24 * 60 * 60 * 1000;

/** On AWS: the Secrets Manager secret whose value the data key is derived from; the stack generates it. */
export const dataKeySecretIdEnvironmentName = 'WEBHOOK_SECRETS_KEY_SECRET_ID';
/** In local mode: a file of random text in the local state, written by lib/local on first start. */
export const dataKeyFileEnvironmentName = 'WEBHOOK_SECRETS_KEY_FILE';

/** A fresh secret, `whsec_` + base64 of 32 random bytes, as the standardwebhooks libraries read it. */
export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}`;
}

/** What the endpoint item holds of its secrets: sealed text only. */
export interface SealedSecrets {
  readonly workspaceId: string;
  readonly endpointId: string;
  readonly secret: string;
  readonly previousSecret?: string;
  readonly previousSecretExpiresAt?: string;
}

const SEALED_VERSION = 'v1';
const IV_BYTES = 12;

/**
 * The data key from its material: HKDF-SHA256, so that any high-entropy text (Secrets Manager generates printable
 * characters, not raw bytes) gives a uniform 256-bit AES key.
 */
export function deriveDataKey(material: string): Buffer {
  if (material.length < 32) throw new Error('the webhook data key material is shorter than 32 characters');
  return Buffer.from(hkdfSync('sha256', material, 'pricing-service', 'webhook signing secrets v1', 32));
}

/**
 * Seals a secret to one endpoint: the associated data names the workspace and endpoint, so a sealed secret copied
 * onto another endpoint's item does not open.
 */
export function sealSecret(key: Buffer, plaintext: string, owner: { workspaceId: string; endpointId: string }): string {
  return sealText(key, plaintext, ownerContext(owner));
}

export function openSecret(key: Buffer, sealed: string, owner: { workspaceId: string; endpointId: string }): string {
  return openText(key, sealed, ownerContext(owner));
}

/**
 * Seals any text that shows a secret under the data key, bound to its place by `context` (the associated data): sealed
 * text copied to another place does not open. A stored answer that shows a new endpoint's secret is sealed so.
 */
export function sealText(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [SEALED_VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function openText(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== SEALED_VERSION || !iv || !tag || ciphertext === undefined) throw new Error('a sealed text is malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

function ownerContext(owner: { workspaceId: string; endpointId: string }): string {
  return `webhook-endpoint:${owner.workspaceId}:${owner.endpointId}`;
}

let loaded: { source: string; key: Promise<Buffer> } | undefined;

/** Where the data key comes from in this process, as the stack or lib/local configured it. */
function dataKeySource(): { kind: 'secretsManager' | 'file'; id: string } {
  const secretId = process.env[dataKeySecretIdEnvironmentName];
  if (secretId) return { kind: 'secretsManager', id: secretId };
  const file = process.env[dataKeyFileEnvironmentName];
  if (file) return { kind: 'file', id: file };
  throw new Error(`no webhook data key: set ${dataKeySecretIdEnvironmentName} (AWS) or ${dataKeyFileEnvironmentName} (local)`);
}

async function readDataKeyMaterial(source: { kind: 'secretsManager' | 'file'; id: string }): Promise<string> {
  if (source.kind === 'file') return (await readFile(source.id, 'utf8')).trim();
  // Loaded only where it is used, so that local mode and the functions without the grant never bundle or start it.
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: source.id }));
    if (!SecretString) throw new Error('the webhook data key secret has no value');
    return SecretString;
  } finally {
    client.destroy();
  }
}

/** The data key, read once per process (per cold start on Lambda); a failed read is retried on the next call. */
export function dataKey(): Promise<Buffer> {
  const source = dataKeySource();
  const id = `${source.kind}:${source.id}`;
  if (loaded?.source !== id) {
    const key = readDataKeyMaterial(source).then(deriveDataKey);
    key.catch(() => {
      if (loaded?.key === key) loaded = undefined;
    });
    loaded = { source: id, key };
  }
  return loaded.key;
}

/** The plaintext secrets to sign with now: the current one first, then the previous one while its 24 hours last. */
export async function signingSecrets(endpoint: SealedSecrets, nowMs: number): Promise<string[]> {
  const key = await dataKey();
  const secrets = [openSecret(key, endpoint.secret, endpoint)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && Date.parse(endpoint.previousSecretExpiresAt) > nowMs) {
    secrets.push(openSecret(key, endpoint.previousSecret, endpoint));
  }
  return secrets;
}
