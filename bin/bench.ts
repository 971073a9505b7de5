// `npm run bench`: the service's speed, size and cost figures, measured on this machine and printed with their targets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureGatewayOverhead } from '../lib/bench/gateway-overhead.ts';
import { synthesizeBundles } from '../lib/bundles.ts';

const BUNDLE_TARGET_KB = 400;
const GATEWAY_OVERHEAD_TARGET_MS = 2;

function verdict(ok: boolean): string {
  return ok ? 'meets target' : 'MISSES TARGET';
}

const results: Record<string, unknown> = {};

console.log('Function bundles (esbuild, minified ESM, as deployed)');
const outdir = mkdtempSync(join(tmpdir(), 'pricing-bundles-'));
const bundles = synthesizeBundles(outdir);
rmSync(outdir, { recursive: true, force: true });
for (const bundle of bundles) {
  const kb = bundle.bytes / 1024;
  console.log(
    `  ${bundle.id.padEnd(24)} ${kb.toFixed(1).padStart(7)} KB   ${verdict(kb <= BUNDLE_TARGET_KB)} (<= ${BUNDLE_TARGET_KB} KB)   ${bundle.entry}`,
  );
}
results.bundlesKb = Object.fromEntries(bundles.map((bundle) => [bundle.id, Math.round(bundle.bytes / 102.4) / 10]));

console.log('\nLocal gateway overhead (no-op route, one keep-alive connection)');
const overhead = await measureGatewayOverhead(1_000);
console.log(`  through the gateway   median ${overhead.gatewayMedianMs.toFixed(3)} ms, p99 ${overhead.gatewayP99Ms.toFixed(3)} ms`);
console.log(`  bare HTTP server      median ${overhead.bareMedianMs.toFixed(3)} ms`);
console.log(
  `  gateway's own cost    median ${overhead.overheadMedianMs.toFixed(3)} ms per request over ${overhead.requests} requests   ${verdict(overhead.overheadMedianMs <= GATEWAY_OVERHEAD_TARGET_MS)} (<= ${GATEWAY_OVERHEAD_TARGET_MS} ms)`,
);
results.gatewayOverhead = overhead;

console.log(`\n${JSON.stringify(results)}`);
