// `npm run openapi:check`: the contract documents against the released ones; `npm run openapi:release` keeps today's as released.
import { runRelease } from '#lib/contract/release.ts';

process.exitCode = runRelease(process.argv.slice(2));
