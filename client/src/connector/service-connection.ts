// Where the connector finds the service (the local stack's gateway unless --url), and how the service's refusals read.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project this kit sits in: its local stack (`npm start`) is the default API. */
const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The local stack's gateway, found as the admin CLI finds the stack. */
export function localGatewayUrl(): string {
  const stackFile = join(process.env.PRICING_LOCAL_DIR || join(projectRoot, '.local'), 'stack.json');
  if (!existsSync(stackFile)) {
    throw new Error(`no local stack is running (${stackFile} is missing): start it with \`npm start\`, or pass --url`);
  }
  return (JSON.parse(readFileSync(stackFile, 'utf8')) as { gatewayUrl: string }).gatewayUrl;
}

/** The key is never in a message: errors name the status and code the API answered. */
export function failureText(error: unknown): string {
  const { status, code, message } = (error ?? {}) as { status?: number; code?: string; message?: string };
  if (status === 401) return `the API refused the key (401 ${code ?? 'unauthorized'}): check --key or PRICING_KEY`;
  if (status === 403) return `the key may not claim write-backs (403 ${code ?? 'forbidden'}): ${message ?? ''}`.trim();
  return message ?? String(error);
}
