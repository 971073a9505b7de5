// AWS credentials inside Lambda: the runtime's environment variables, standing in for the SDK's full provider chain.
//
// Lambda always hands a function its role's credentials as AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN. The SDK's default chain (profiles, SSO, STS, IMDS, container endpoints) is some 90 KB of
// bundle that a function never uses, so the bundler aliases @aws-sdk/credential-provider-node to this module.
// Local tools (the admin CLI, local mode) are not bundled and keep the full chain.
export interface LambdaCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string | undefined;
}

export function defaultProvider(): () => Promise<LambdaCredentials> {
  return async () => {
    const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) throw new Error('no AWS credentials in the environment');
    return { accessKeyId, secretAccessKey, sessionToken: process.env.AWS_SESSION_TOKEN };
  };
}
