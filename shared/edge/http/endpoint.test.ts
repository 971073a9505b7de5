// Unit tests of the endpoint chain's log keys: every line of a request names it and its route, and no other request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { logger } from '#platform/observability.ts';
import { type CapturedLogs, captureLogs } from '#test/support/log-lines.ts';
import { type EndpointRequest, type HttpResult, openEndpoint } from './endpoint.ts';

/** Calls a handler as the gateway would: a payload 2.0 event with a fresh request id, and a Lambda context. */
function invoke(handler: ReturnType<typeof openEndpoint>, url: string) {
  const path = new URL(url, 'http://local').pathname;
  const event = buildEvent(
    { method: 'GET', url, headers: { host: 'localhost' }, body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
    `GET ${path}`,
    undefined,
  );
  const context = createLambdaContext({ name: 'test', memoryMb: 128, timeoutSeconds: 3 });
  return { requestId: event.requestContext.requestId, result: handler(event, context) };
}

const bodyOf = (result: HttpResult) => JSON.parse(result.body ?? '{}');

describe('the log keys of a request', () => {
  let logs: CapturedLogs;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  it('names the request and its route on its unhandled fault and its cost line, by the id its 500 tells the caller to quote', async () => {
    const faulty = openEndpoint('faulty', async () => {
      logger.info('about to fail');
      throw new Error('connection to 10.0.0.7 refused');
    });
    const { requestId, result } = invoke(faulty, '/faulty');
    const response = await result;

    expect(response.statusCode).toBe(500);
    expect(bodyOf(response).error).toMatchObject({ code: 'internal_error', requestId });
    expect(logs.withMessage('unhandled fault')).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        requestId,
        route: 'faulty',
        error: expect.objectContaining({ message: expect.any(String) }),
      }),
    ]);
    expect(logs.withMessage('request completed')).toEqual([expect.objectContaining({ requestId, route: 'faulty', status: 500 })]);
    expect(logs.lines.length).toBe(3);
    for (const line of logs.lines) expect(line).toMatchObject({ requestId, route: 'faulty' });
  });

  it("gives two concurrent requests' lines each their own id, and a later request's lines neither of theirs", async () => {
    const gates = new Map<string, PromiseWithResolvers<void>>([
      ['a', Promise.withResolvers<void>()],
      ['b', Promise.withResolvers<void>()],
    ]);
    const slow = openEndpoint('slow', async ({ event }: EndpointRequest) => {
      const name = event.queryStringParameters?.name ?? 'later';
      logger.info('started', { name });
      await gates.get(name)?.promise;
      logger.info('resumed', { name });
      return { statusCode: 200, body: { name } };
    });

    const a = invoke(slow, '/slow?name=a');
    const b = invoke(slow, '/slow?name=b');
    // B resumes first: a logger holding one set of keys for the process would now name B on A's lines.
    gates.get('b')?.resolve();
    await b.result;
    gates.get('a')?.resolve();
    await a.result;
    const later = invoke(slow, '/slow');
    await later.result;
    logger.info('between requests');

    const idOf = { a: a.requestId, b: b.requestId, later: later.requestId };
    expect(new Set(Object.values(idOf)).size).toBe(3);
    for (const [name, requestId] of Object.entries(idOf)) {
      const lines = logs.lines.filter((line) => line.requestId === requestId);
      expect(lines.map((line) => line.message)).toEqual(['started', 'resumed', 'request completed']);
      for (const line of lines.slice(0, 2)) expect(line).toMatchObject({ name, route: 'slow' });
    }
    const laterLines = JSON.stringify(logs.lines.filter((line) => line.requestId === later.requestId));
    expect(laterLines).not.toContain(a.requestId);
    expect(laterLines).not.toContain(b.requestId);
    const between = logs.withMessage('between requests')[0];
    expect(between).not.toHaveProperty('requestId');
    expect(between).not.toHaveProperty('route');
  });
});
