// Timing helpers the benchmarks share: a keep-alive HTTP client and percentiles over samples.
import { Agent, request } from 'node:http';

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** One connection reused for every request, as a warm client would, so that connection setup is not measured. */
export function keepAliveClient(baseUrl: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(baseUrl);
  return {
    send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        const req = request({ agent, hostname, port, method, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Milliseconds each call of `run` took, after `warmup` calls that are not kept. */
export async function timeEach(count: number, warmup: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}
