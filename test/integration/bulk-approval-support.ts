// Driving a bulk approval through the local gateway as a browser does: a signed-in person, the list's checkboxes, the confirmation step's form and its send.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ConsoleRole } from '#edge/console/page.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { recentTasks } from '#shared/writebacks/listing.ts';
import { ConsoleBrowser, csrfTokenOf, type PageAnswer } from './console-session.ts';
import type { TestWorkspace } from './support.ts';

export const LIST = '/console/recommendations';

let emails = 0;

export async function person(workspaceId: string, roles: readonly ConsoleRole[]): Promise<ConsoleBrowser> {
  const password = `chosen-${randomUUID()}`;
  const user = await createConsoleUser({ workspaceId, email: `bulk-${Date.now()}-${emails++}@example.com`, roles, password });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  return browser;
}

/** The SKUs the list offers to select, by their checkbox fields. */
export function picks(page: string): Record<string, string> {
  return Object.fromEntries(
    [...page.matchAll(/<input[^>]*type="checkbox"[^>]*name="(pick\.\d+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
}

/** The confirmation step form's inputs, each with its type, name, value and whether it starts ticked. */
function confirmationInputs(page: string) {
  const form = /<form class="approve"[\s\S]*?<\/form>/.exec(page)?.[0];
  if (!form) throw new Error(`the page has no confirmation form: ${page.slice(0, 2000)}`);
  return [...form.matchAll(/<input([^>]*)>/g)].flatMap(([, attributes = '']) => {
    const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
    const name = attribute('name');
    if (!name) return [];
    return [{ type: attribute('type'), name, value: attribute('value') ?? 'on', ticked: /\schecked\b/.test(attributes) }];
  });
}

/** What a browser sends of the confirmation step's form untouched: its hidden fields, and the boxes that start ticked. */
export function confirmationFields(page: string): Record<string, string> {
  const sent = confirmationInputs(page).filter((input) => input.type === 'hidden' || (input.type === 'checkbox' && input.ticked));
  return Object.fromEntries(sent.map((input) => [input.name, input.value]));
}

/** The boxes the confirmation step leaves unticked, by name: each line held back and each large change's own box. */
export function untickedBoxes(page: string): Record<string, string> {
  const unticked = confirmationInputs(page).filter((input) => input.type === 'checkbox' && !input.ticked);
  return Object.fromEntries(unticked.map((input) => [input.name, input.value]));
}

/** Selects every product the filtered list shows and asks for the confirmation step. */
export async function review(browser: ConsoleBrowser, query: string): Promise<PageAnswer> {
  const list = await browser.get(`${LIST}?${query}`);
  expect(list.status).toBe(200);
  return browser.request('POST', LIST, { _csrf: csrfTokenOf(list.text), _action: 'review', back: query, ...picks(list.text) });
}

export function confirm(browser: ConsoleBrowser, fields: Record<string, string>): Promise<PageAnswer> {
  return browser.request('POST', LIST, fields);
}

export async function tasksOf(workspace: TestWorkspace, sku: string) {
  return (await recentTasks(workspace.workspaceId, workspace.connectorId)).filter((task) => task.productSku === sku);
}
