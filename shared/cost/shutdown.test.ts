// Unit tests of the shutdown flush: the no-op extension it registers with a stand-in Extensions API, and the flush on SIGTERM.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushOnShutdown } from './shutdown.ts';

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

describe('the shutdown flush', () => {
  let server: Server;
  let seen: Seen[];
  const previous = process.env.AWS_LAMBDA_RUNTIME_API;

  beforeEach(async () => {
    seen = [];
    // As Lambda's Extensions API: register answers an identifier; next holds the call open, as it does with no events.
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, headers: request.headers, body });
        if (request.url?.endsWith('/register')) {
          response.writeHead(200, { 'lambda-extension-identifier': 'ext-1', 'content-type': 'application/json' }).end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.AWS_LAMBDA_RUNTIME_API = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    if (previous === undefined) delete process.env.AWS_LAMBDA_RUNTIME_API;
    else process.env.AWS_LAMBDA_RUNTIME_API = previous;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('registers an extension that asks for no events, then asks for its next event, so that Lambda sends SIGTERM', async () => {
    const before = process.listeners('SIGTERM');
    await flushOnShutdown(
      async () => undefined,
      () => undefined,
    );
    await expect.poll(() => seen.length).toBe(2);
    const [register, next] = seen;
    expect(register).toMatchObject({ method: 'POST', url: '/2020-01-01/extension/register', body: '{"events":[]}' });
    expect(register?.headers['lambda-extension-name']).toBe('cost-ledger');
    expect(next).toMatchObject({ method: 'GET', url: '/2020-01-01/extension/event/next' });
    expect(next?.headers['lambda-extension-identifier']).toBe('ext-1');
    const added = process.listeners('SIGTERM').filter((listener) => !before.includes(listener));
    expect(added).toHaveLength(1);
    for (const listener of added) process.off('SIGTERM', listener);
  });

  it('flushes on SIGTERM and only then lets the process end', async () => {
    const order: string[] = [];
    await flushOnShutdown(
      async () => {
        order.push('flushed');
      },
      () => order.push('exited'),
    );
    process.emit('SIGTERM', 'SIGTERM');
    await expect.poll(() => order).toEqual(['flushed', 'exited']);
  });

  it('does nothing outside Lambda', async () => {
    delete process.env.AWS_LAMBDA_RUNTIME_API;
    const listeners = process.listenerCount('SIGTERM');
    await flushOnShutdown(async () => undefined);
    expect(process.listenerCount('SIGTERM')).toBe(listeners);
    expect(seen).toEqual([]);
  });
});
