// A webhook receiver on loopback for the delivery tests: it verifies each request with the standardwebhooks package, as a connector's would.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  readonly webhookId: string;
  /** The request's path and query, which tells endpoints sharing one receiver apart. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The event as the signature check returned it, or undefined if the signature did not verify. */
  readonly event?: { type: string; id: string; workspaceId: string; data: Record<string, unknown> };
  readonly verifyError?: string;
}

/** How to answer one request: a status; `hang` to never answer; `endless` to send 200 at once and never end the body. */
export type Answer = number | 'hang' | 'endless';

export interface Receiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Sets the signing secret the receiver verifies with (known once the endpoint is created). */
  verifyWith(secret: string): void;
  /** Answers to the next requests, in order; once spent, every request gets the standing answer (200 unless set). */
  answerNext(...answers: Answer[]): void;
  /** The answer once the queued ones are spent. */
  answerEvery(answer: Answer): void;
  /** The most requests that were ever open at once, in all and by path: what the sender held in flight. */
  readonly mostOpen: { all: number; byPath: Map<string, number> };
  /** Called when a request arrives, before it is answered. */
  onRequest?: (request: ReceivedRequest) => void;
  /** Verified events, in the order they arrived, one per webhook-id (retries of an id after a success are dropped). */
  events(): Array<NonNullable<ReceivedRequest['event']>>;
  waitFor(test: (requests: readonly ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startReceiver(listenOn = 0): Promise<Receiver> {
  let secret: string | undefined;
  const answers: Answer[] = [];
  const requests: ReceivedRequest[] = [];
  const hanging: ServerResponse[] = [];
  let standing: Answer = 200;
  const open = { all: 0, byPath: new Map<string, number>() };
  const mostOpen = { all: 0, byPath: new Map<string, number>() };
  const receiver: Partial<Receiver> & { onRequest?: Receiver['onRequest'] } = {};

  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    open.all += 1;
    open.byPath.set(path, (open.byPath.get(path) ?? 0) + 1);
    mostOpen.all = Math.max(mostOpen.all, open.all);
    mostOpen.byPath.set(path, Math.max(mostOpen.byPath.get(path) ?? 0, open.byPath.get(path) ?? 0));
    // Open until the connection is done with, answered or cut off by the sender.
    response.on('close', () => {
      open.all -= 1;
      open.byPath.set(path, (open.byPath.get(path) ?? 1) - 1);
    });
    void readBody(request).then((body) => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      let event: ReceivedRequest['event'];
      let verifyError: string | undefined;
      try {
        if (!secret) throw new Error('the receiver has no secret yet');
        event = new Webhook(secret).verify(body, headers) as ReceivedRequest['event'];
      } catch (error) {
        verifyError = (error as Error).message;
      }
      const received: ReceivedRequest = { webhookId: headers['webhook-id'] ?? '', path, headers, body, event, verifyError };
      requests.push(received);
      receiver.onRequest?.(received);
      const answer = answers.shift() ?? standing;
      if (answer === 'hang' || answer === 'endless') {
        if (answer === 'endless') response.writeHead(200, { 'content-type': 'text/plain' }).write('ok, and more to come');
        hanging.push(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' });
      response.end(answer >= 200 && answer < 300 ? 'ok' : `refused with ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(listenOn, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    verifyWith(value: string) {
      secret = value;
    },
    answerNext(...next: Answer[]) {
      answers.push(...next);
    },
    answerEvery(answer: Answer) {
      standing = answer;
    },
    mostOpen,
    events() {
      const seen = new Set<string>();
      const verified: Array<NonNullable<ReceivedRequest['event']>> = [];
      for (const request of requests) {
        if (!request.event || seen.has(request.webhookId)) continue;
        seen.add(request.webhookId);
        verified.push(request.event);
      }
      return verified;
    },
    async waitFor(test: (all: readonly ReceivedRequest[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!test(requests)) {
        if (Date.now() > deadline) {
          throw new Error(
            `the receiver did not get what was awaited; it got ${requests.map((r) => `${r.event?.type ?? '?'} ${r.webhookId}`).join(', ') || 'nothing'}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as Receiver;
}
