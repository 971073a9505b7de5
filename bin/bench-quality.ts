// `npm run bench:quality`: pricing quality, simulated markets with a known chance of winning scored against the oracle.
import { runQualityBench } from '#lib/bench/quality/cli.ts';

await runQualityBench(process.argv.slice(2));
