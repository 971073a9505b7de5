// Free-form attributes: the one part of a record whose inside the caller shapes, and the bound on how deep it nests.
import * as v from 'valibot';

/**
 * The attributes object is level 1, and each object or array inside adds one. Everything downstream (the record size
 * check, chunk compression, the drain's stored JSON) serialises records recursively; a bound keeps that recursion
 * shallow, and 32 is DynamoDB's own bound on nested maps, should attributes ever be stored as maps.
 */
export const MAX_ATTRIBUTE_DEPTH = 32;

export interface PathStep {
  /** The object or array the step is taken in. */
  readonly input: Record<string, unknown> | unknown[];
  readonly key: string | number;
  readonly value: unknown;
}

interface Frame {
  readonly container: Record<string, unknown> | unknown[];
  /** An object's own keys, in the order JSON.parse gave them; undefined for an array. */
  readonly keys: readonly string[] | undefined;
  next: number;
}

function frameOf(container: Record<string, unknown> | unknown[]): Frame {
  return { container, keys: Array.isArray(container) ? undefined : Object.keys(container), next: 0 };
}

/**
 * The steps from `root` down to the first object or array, in document order, that lies deeper than `maxDepth`
 * levels (root being level 1); undefined when none does. Iterative, with an explicit stack that never grows past
 * `maxDepth`, so input nested a million levels deep costs no more than input nested `maxDepth + 1`.
 */
export function firstTooDeep(root: Record<string, unknown> | unknown[], maxDepth: number = MAX_ATTRIBUTE_DEPTH): PathStep[] | undefined {
  const frames: Frame[] = [frameOf(root)];
  const steps: PathStep[] = [];
  while (frames.length > 0) {
    const frame = frames[frames.length - 1] as Frame;
    const size = frame.keys ? frame.keys.length : (frame.container as unknown[]).length;
    if (frame.next >= size) {
      frames.pop();
      steps.pop();
      continue;
    }
    const key = frame.keys ? (frame.keys[frame.next] as string) : frame.next;
    frame.next++;
    const value: unknown = (frame.container as Record<string | number, unknown>)[key];
    if (typeof value !== 'object' || value === null) continue;
    const step = { input: frame.container, key, value };
    if (frames.length >= maxDepth) return [...steps, step];
    frames.push(frameOf(value as Record<string, unknown> | unknown[]));
    steps.push(step);
  }
  return undefined;
}

function isPlainObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const prototype: unknown = Object.getPrototypeOf(input);
  return prototype === Object.prototype || prototype === null;
}

const depthMessage = `attributes may nest objects and arrays at most ${MAX_ATTRIBUTE_DEPTH} levels deep`;

/**
 * Free-form data the connector carries along; nothing inside is checked but its depth. v.record alone would take an
 * array and quietly turn it into an object keyed "0", "1", …, and would drop keys such as "constructor", so the
 * object is checked here and passed through as it came. A value nested too deep is named by its path, so that
 * `param` points into the attribute (`records[3].attributes.specs.a.b…`).
 */
export const AttributesSchema = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, 'an object with string keys'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const steps = firstTooDeep(dataset.value);
    if (steps === undefined) return;
    const path = steps.map((step): v.IssuePathItem =>
      typeof step.key === 'number'
        ? { type: 'array', origin: 'value', input: step.input as unknown[], key: step.key, value: step.value }
        : { type: 'object', origin: 'value', input: step.input as Record<string, unknown>, key: step.key, value: step.value },
    ) as [v.IssuePathItem, ...v.IssuePathItem[]];
    addIssue({ message: depthMessage, path });
  }),
);
