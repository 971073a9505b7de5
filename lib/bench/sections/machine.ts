// The bench sections that run before the local stack starts: function bundle sizes, the local gateway's own cost, the engine's CPU.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEngine } from '#lib/bench/engine.ts';
import { measureGatewayOverhead } from '#lib/bench/gateway-overhead.ts';
import { section, verdict } from '#lib/bench/section.ts';
import { synthesizeBundles } from '#lib/stack/bundles.ts';

export const bundlesSection = section({
  id: 'bundles',
  where: 'in-process',
  heading: 'Function bundles (esbuild, minified ESM, as deployed)',
  targets: { kb: 400 },
  async measure() {
    const outdir = mkdtempSync(join(tmpdir(), 'pricing-bundles-'));
    const bundles = synthesizeBundles(outdir);
    rmSync(outdir, { recursive: true, force: true });
    return bundles;
  },
  lines: (bundles, targets) =>
    bundles.map((bundle) => {
      const kb = bundle.bytes / 1024;
      return `  ${bundle.id.padEnd(24)} ${kb.toFixed(1).padStart(7)} KB   ${verdict(kb <= targets.kb)} (<= ${targets.kb} KB)   ${bundle.entry}`;
    }),
  record: (bundles) => ({
    bundlesKb: Object.fromEntries(bundles.map((bundle) => [bundle.id, Math.round(bundle.bytes / 102.4) / 10])),
  }),
});

export const gatewayOverheadSection = section({
  id: 'gateway-overhead',
  where: 'in-process',
  heading: '\nLocal gateway overhead (no-op route, one keep-alive connection)',
  targets: { ms: 2 },
  measure: () => measureGatewayOverhead(1_000),
  lines: (overhead, targets) => [
    `  through the gateway   median ${overhead.gatewayMedianMs.toFixed(3)} ms, p99 ${overhead.gatewayP99Ms.toFixed(3)} ms`,
    `  bare HTTP server      median ${overhead.bareMedianMs.toFixed(3)} ms`,
    `  gateway's own cost    median ${overhead.overheadMedianMs.toFixed(3)} ms per request over ${overhead.requests} requests   ${verdict(overhead.overheadMedianMs <= targets.ms)} (<= ${targets.ms} ms)`,
  ],
  record: (overhead) => ({ gatewayOverhead: overhead }),
});

// Before the local stack starts: DynamoDB Local's JVM would otherwise share the cores with it, even while stopping.
export const engineSection = section({
  id: 'engine',
  where: 'in-process',
  heading: '\nPricing engine, in-process',
  targets: { micros: 20 },
  measure: () => benchEngine(),
  lines: (engine, targets) => [
    `  priceLine               ${engine.microsPerLine.toFixed(2)} µs per line over ${engine.lines.toLocaleString('en-US')} lines   ${verdict(engine.microsPerLine <= targets.micros)} (<= ${targets.micros} µs)`,
  ],
  record: (engine) => ({ engine }),
});
