// `npm run bench`: the service's speed, size and cost figures, measured on this machine and printed with their targets.
import { runBench } from '#lib/bench/cli.ts';

await runBench(process.argv.slice(2));
