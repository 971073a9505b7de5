// The canary's API key, read from the Secrets Manager secret the operator fills: only its id is in the environment.

/** The secret's value, or undefined while the operator has not set one (the placeholder the stack creates is empty). */
export async function readKeySecret(secretId: string): Promise<string | undefined> {
  // Loaded only where it is used, as the webhook data key's reader does, so that nothing else bundles or starts it.
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return SecretString;
  } finally {
    client.destroy();
  }
}
