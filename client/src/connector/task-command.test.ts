// A task's command as really spawned: what it receives, and what comes back of how it ended.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { taskCommand } from './task-command.ts';

const task = { id: 'wb_1', productSku: 'SKU-1', priceCents: 1234, currency: 'USD' };
const node = JSON.stringify(process.execPath);

describe('a task command', () => {
  it('gets the task as JSON on stdin and its id in PRICING_TASK_ID, and its stderr comes back', async () => {
    const echo = new PassThrough();
    const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const t=JSON.parse(s);console.error(process.env.PRICING_TASK_ID+' '+t.productSku+' '+t.priceCents);process.exit(4)})`;
    const outcome = await taskCommand({ command: `${node} -e "${script}"`, echo }).run(task);
    expect(outcome).toEqual({ code: 4, signal: null, stderr: 'wb_1 SKU-1 1234\n' });
  });

  it('ends with code 0 even when the command never reads its stdin', async () => {
    const outcome = await taskCommand({ command: 'true', echo: new PassThrough() }).run(task);
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
  });

  it('ends the commands still running when told to, as a second signal does', async () => {
    const commands = taskCommand({ command: 'sleep 30', echo: new PassThrough() });
    const outcome = commands.run(task);
    commands.terminate();
    expect(await outcome).toMatchObject({ code: null, signal: 'SIGTERM' });
  });
});
