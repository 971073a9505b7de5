// Fair delivery: how many attempts one endpoint and one workspace may hold in flight at once, as leases that expire on their own.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { getItem, putItem, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';

/** Attempts one endpoint may have waiting on its receiver at once. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 2;
/**
 * Attempts one workspace may have waiting on its receivers at once, all its endpoints together. Each waiting attempt
 * holds a worker invocation until its answer or its timeout, so this is what one workspace can take of the worker's
 * pool (docs/decisions.md has the sums).
 */
export const MAX_IN_FLIGHT_PER_WORKSPACE = 4;
/**
 * A lease outlives its attempt's timeout by this much (the signing, the log write), and no more: an attempt whose
 * worker crashed frees its slot this long after its timeout, with nothing to release it.
 */
export const LEASE_MARGIN_MS = 10_000;

const LeaseSchema = v.object({ endpointId: v.string(), until: v.number() });
const InFlightSchema = v.object({ leases: v.record(v.string(), LeaseSchema), version: v.number() });
export type Leases = v.InferOutput<typeof InFlightSchema>['leases'];

/** Why an attempt may not start now; it is then deferred, never failed. */
export type Busy = 'endpoint' | 'workspace';

/** The live leases, those past their expiry dropped, and whether one more for the endpoint fits under both bounds. */
export function admit(leases: Leases, endpointId: string, nowMs: number): { readonly live: Leases; readonly busy?: Busy } {
  const live = Object.fromEntries(Object.entries(leases).filter(([, lease]) => lease.until > nowMs));
  const held = Object.values(live);
  if (held.filter((lease) => lease.endpointId === endpointId).length >= MAX_IN_FLIGHT_PER_ENDPOINT) return { live, busy: 'endpoint' };
  if (held.length >= MAX_IN_FLIGHT_PER_WORKSPACE) return { live, busy: 'workspace' };
  return { live };
}

/**
 * What this process last found at its bound, and until when it takes that as still so without reading: a batch of a
 * flooding workspace's attempts is deferred after one read instead of one each, so that working through its backlog
 * costs the queue's other workspaces as little as it can. A slot freed meanwhile is found a moment later.
 */
const knownBusy = new Map<string, number>();
export const BUSY_MEMO_MS = 1_000;

function busyKeys(workspaceId: string, endpointId: string): Record<Busy, string> {
  return { workspace: workspaceId, endpoint: `${workspaceId}#${endpointId}` };
}

/** Whether this process found the endpoint or its workspace at its bound a moment ago. */
export function knownAtBound(workspaceId: string, endpointId: string, nowMs: number): Busy | undefined {
  const names = busyKeys(workspaceId, endpointId);
  for (const busy of ['workspace', 'endpoint'] as const) {
    const until = knownBusy.get(names[busy]);
    if (until !== undefined && until > nowMs) return busy;
    if (until !== undefined) knownBusy.delete(names[busy]);
  }
  return undefined;
}

/** Takes of one workspace's slots in this process, one after another: siblings of a batch never race each other's writes. */
const taking = new Map<string, Promise<unknown>>();

/** A lease taken: its id, to release it by. */
export interface Lease {
  readonly workspaceId: string;
  readonly leaseId: string;
}

/** Tries to take the item over what was read this many times before an attempt is deferred as contended. */
const TAKE_TRIES = 3;

/**
 * Takes one in-flight slot for an attempt at the endpoint, for `holdMs`: the workspace's item is read, its expired
 * leases dropped, and written whole over the version read, so that two workers never both take the last slot.
 */
export function takeSlot(workspaceId: string, endpointId: string, holdMs: number, nowMs: number): Promise<Lease | Busy> {
  const mine = (taking.get(workspaceId) ?? Promise.resolve()).then(() => takeSlotNow(workspaceId, endpointId, holdMs, nowMs));
  const settled = mine.catch(() => undefined);
  taking.set(workspaceId, settled);
  void settled.then(() => {
    if (taking.get(workspaceId) === settled) taking.delete(workspaceId);
  });
  return mine;
}

async function takeSlotNow(workspaceId: string, endpointId: string, holdMs: number, nowMs: number): Promise<Lease | Busy> {
  const known = knownAtBound(workspaceId, endpointId, nowMs);
  if (known) return known;
  const taken = await readAndTake(workspaceId, endpointId, holdMs, nowMs);
  // Only a full workspace is remembered: an endpoint's own bound is read afresh, as its fast answers free it at once.
  if (taken === 'workspace') knownBusy.set(busyKeys(workspaceId, endpointId).workspace, nowMs + BUSY_MEMO_MS);
  return taken;
}

async function readAndTake(workspaceId: string, endpointId: string, holdMs: number, nowMs: number): Promise<Lease | Busy> {
  const key = keys.webhookInFlight(workspaceId);
  for (let tries = 0; tries < TAKE_TRIES; tries++) {
    const item = await getItem({ Key: key, ConsistentRead: true });
    const stored = item ? v.parse(InFlightSchema, item) : undefined;
    const { live, busy } = admit(stored?.leases ?? {}, endpointId, nowMs);
    if (busy) return busy;
    const leaseId = randomUUID();
    const written = await putItem({
      Item: {
        ...key,
        type: 'webhookInFlight',
        leases: { ...live, [leaseId]: { endpointId, until: nowMs + holdMs } },
        version: (stored?.version ?? 0) + 1,
      },
      ConditionExpression: stored ? 'version = :version' : 'attribute_not_exists(PK)',
      ...(stored ? { ExpressionAttributeValues: { ':version': stored.version } } : {}),
    });
    if (!written.refused) return { workspaceId, leaseId };
  }
  // Other workers took the item in between every time: the workspace is busy enough to wait.
  return 'workspace';
}

/** Gives the slot back; a lease already dropped as expired is nothing to give back. */
export async function releaseSlot(lease: Lease): Promise<void> {
  await updateItem({
    Key: keys.webhookInFlight(lease.workspaceId),
    UpdateExpression: 'REMOVE leases.#lease ADD version :one',
    ConditionExpression: 'attribute_exists(leases.#lease)',
    ExpressionAttributeNames: { '#lease': lease.leaseId },
    ExpressionAttributeValues: { ':one': 1 },
  });
}
