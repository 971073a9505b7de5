// Benchmark: what the local gateway adds to a request, against a bare HTTP server answering the same bytes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway } from '#lib/local/gateway.ts';
import { keepAliveClient, percentile, timeEach } from './measure.ts';

export interface GatewayOverhead {
  readonly requests: number;
  readonly gatewayMedianMs: number;
  readonly gatewayP99Ms: number;
  readonly bareMedianMs: number;
  /** Median through the gateway minus median of the bare server: the gateway's own cost per request. */
  readonly overheadMedianMs: number;
}

const BODY = '{"ok":true}';

export async function measureGatewayOverhead(requests = 1_000): Promise<GatewayOverhead> {
  const noOp = async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: BODY });
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    routes: [{ method: 'POST', path: '/api/v1/no-op/{id}', entry: 'no-op', name: 'noOp', memoryMb: 128, timeoutSeconds: 3 }],
    fallback: { entry: 'no-op', name: 'fallback', memoryMb: 128, timeoutSeconds: 3 },
    load: async () => noOp,
  });
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
      res.end(BODY);
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  const headers = { authorization: `Bearer svc_live_${'x'.repeat(40)}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ lines: [{ productSku: 'SKU-1', quantity: 1 }] });
  const viaGateway = keepAliveClient(gateway.url);
  const direct = keepAliveClient(bareUrl);
  try {
    // Interleaved rounds, so that drift in machine load falls on both sides alike.
    const gatewaySamples: number[] = [];
    const bareSamples: number[] = [];
    for (let round = 0; round < 10; round++) {
      gatewaySamples.push(...(await timeEach(requests / 10, 20, () => viaGateway.send('POST', '/api/v1/no-op/abc?x=1', headers, body))));
      bareSamples.push(...(await timeEach(requests / 10, 20, () => direct.send('POST', '/api/v1/no-op/abc?x=1', headers, body))));
    }
    const gatewayMedianMs = percentile(gatewaySamples, 50);
    const bareMedianMs = percentile(bareSamples, 50);
    return {
      requests,
      gatewayMedianMs,
      gatewayP99Ms: percentile(gatewaySamples, 99),
      bareMedianMs,
      overheadMedianMs: gatewayMedianMs - bareMedianMs,
    };
  } finally {
    viaGateway.close();
    direct.close();
    await gateway.stop();
    await new Promise((resolve) => bare.close(resolve));
  }
}
