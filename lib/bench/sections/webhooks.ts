// The bench's webhook section, run as `node lib/bench/webhooks.ts` in a process of its own: its lines, then its figures as JSON.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { section } from '#lib/bench/section.ts';
import { projectRoot } from '#lib/stack/project.ts';

const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1_000);

// On a stack of its own, whose loopback receivers are allowed, in a process of its own: the handlers' shared clients
// still point at the stack that has just stopped. `node lib/bench/webhooks.ts` runs this section alone.
export const webhooksSection = section({
  id: 'webhooks',
  where: 'own-process',
  // The section prints its own heading.
  heading: '',
  targets: {},
  async measure() {
    const run = spawnSync(process.execPath, [join(projectRoot, 'lib/bench/webhooks.ts')], {
      cwd: projectRoot,
      env: { ...process.env, BENCH_WEBHOOK_EVENTS: String(WEBHOOK_EVENTS) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = run.stdout.trimEnd().split('\n');
    const figures = lines.pop() ?? '';
    return { lines, figures, status: run.status };
  },
  lines: ({ lines }) => [lines.join('\n')],
  record: ({ figures, status }) => {
    if (status !== 0) throw new Error(`the webhook bench failed (exit ${status})`);
    return { webhooks: JSON.parse(figures) as unknown };
  },
});
