// Loads handler modules by their entry in the route table, once each, as Lambda loads a function's code once per instance.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '#lib/stack/project.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- handlers differ in event and result types; callers narrow them.
export type AnyHandler = (event: any, context: any) => Promise<any>;

const loaded = new Map<string, Promise<AnyHandler>>();

export function loadHandler(entry: string): Promise<AnyHandler> {
  let handler = loaded.get(entry);
  if (!handler) {
    handler = import(pathToFileURL(resolve(projectRoot, entry)).href).then((module: { handler?: AnyHandler }) => {
      if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler`);
      return module.handler;
    });
    loaded.set(entry, handler);
  }
  return handler;
}
