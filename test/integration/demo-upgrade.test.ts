// npm start's demo: one kept from a release before the console is brought up to date once, through the migrations it is handed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoConsoleUser, createWorkspaceWithKeys, DEMO_LAYOUT, seedDemo } from '#lib/local/seed.ts';

describe("npm start's demo workspace", () => {
  it('runs the upgrade for a demo saved before the console, gives it its console user, and never runs it again', async () => {
    const savedAt = join(mkdtempSync(join(tmpdir(), 'demo-upgrade-')), 'demo.json');
    const earlier = await createWorkspaceWithKeys('Demo kept from an earlier release');
    writeFileSync(savedAt, JSON.stringify(earlier));
    const upgraded: string[] = [];
    const upgrade = async (workspaceId: string) => {
      upgraded.push(workspaceId);
    };

    const first = await seedDemo(savedAt, upgrade);
    expect(first.created).toBe(false);
    expect(first.demo.workspaceId).toBe(earlier.workspaceId);
    expect(upgraded).toEqual([earlier.workspaceId]);
    expect(JSON.parse(readFileSync(savedAt, 'utf8')).console.email).toBe(first.demo.console.email);

    const second = await seedDemo(savedAt, upgrade);
    expect(second.demo.workspaceId).toBe(earlier.workspaceId);
    expect(upgraded).toEqual([earlier.workspaceId]);
  });

  it('runs the upgrade once for a demo saved with its console user but in an earlier layout', async () => {
    const savedAt = join(mkdtempSync(join(tmpdir(), 'demo-upgrade-')), 'demo.json');
    const earlier = await createWorkspaceWithKeys('Demo kept from before the console listed rows');
    const console = await createDemoConsoleUser(earlier.workspaceId);
    writeFileSync(savedAt, JSON.stringify({ ...earlier, console }));
    const upgraded: string[] = [];
    const upgrade = async (workspaceId: string) => {
      upgraded.push(workspaceId);
    };

    const first = await seedDemo(savedAt, upgrade);
    expect(first.demo.console).toEqual(console);
    expect(upgraded).toEqual([earlier.workspaceId]);
    expect(JSON.parse(readFileSync(savedAt, 'utf8')).layout).toBe(DEMO_LAYOUT);

    await seedDemo(savedAt, upgrade);
    expect(upgraded).toEqual([earlier.workspaceId]);
  });

  it('creates a new demo, with nothing to upgrade, when none was saved', async () => {
    const upgraded: string[] = [];
    const fresh = await seedDemo(undefined, async (workspaceId) => {
      upgraded.push(workspaceId);
    });
    expect(fresh.created).toBe(true);
    expect(upgraded).toEqual([]);
  });
});
