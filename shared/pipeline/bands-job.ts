// The bands job: after a batch drained, the bands of the categories it touched, then the recommendations of every product in them.
import { randomUUID } from 'node:crypto';
import { appendLogKeys, logger } from '#platform/observability.ts';
import { reportBandsLag } from '#shared/bands/lag.ts';
import { BandsLeaseHeld, releaseBandsLease, takeBandsLease } from '#shared/bands/lease.ts';
import { type BandScope, recomputeBands, touchedScope } from '#shared/bands/recompute.ts';
import { readTouched } from '#shared/batches/chunk-items.ts';
import { sendDrainMessage, sendToDrainDeadLetter } from '#shared/batches/drain-queue.ts';
import { BatchLeaseHeld, finishBands, leaseBatch, markPricesFresh, releaseBatchLease, saveBandsJobCursor } from '#shared/batches/lease.ts';
import { getBatch } from '#shared/batches/repository.ts';
import type { Batch } from '#shared/batches/schema.ts';
import { pricingSettings } from '#shared/pricing/settings.ts';
import { touchedSkus } from '#shared/recommendations/recommend.ts';
import { categorySkus } from '#shared/recommendations/listing.ts';
import { refreshRecommendations } from '#shared/recommendations/repository.ts';
import { MAX_SKUS_PER_EVENT, newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import { stampBandsChange } from '#shared/workspaces/bands-stamp.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { workspaceDefaults } from '#shared/workspaces/schema.ts';
import { DRAIN_ATTEMPTS } from './attempts.ts';
import {
  BOUNCE_DELAY_SECONDS,
  clockOf,
  COMMIT_RACE_WINDOW_MS,
  type DrainHooks,
  type DrainInvocation,
  type DrainResult,
  leaseDeadline,
  MIN_TIME_LEFT_MS,
  nothingApplied,
} from './job.ts';

/** A bands job whose workspace's bands another job is recomputing looks again after this. */
const BANDS_BUSY_DELAY_SECONDS = 5;
/**
 * A bands job that finds its batch still `draining` reads it again this often, this many times, before it bounces:
 * the drain sends the job just before its last write, which lands within moments, and a bounce costs seconds of lag.
 */
const DRAINED_RECHECK_MS = 20;
const DRAINED_RECHECKS = 50;

type Workspace = Awaited<ReturnType<typeof getWorkspace>>;

async function parkBands(batch: Batch, invocation: DrainInvocation, cause: string, error?: Error): Promise<DrainResult> {
  await sendToDrainDeadLetter(invocation.body, `Recomputing bands failed after ${DRAIN_ATTEMPTS} attempts (${cause}).`);
  logger.error('bands job gave up', { batchId: batch.batchId, jobId: batch.jobId, cause, error });
  return nothingApplied('failed');
}

/**
 * What a bands job recomputes: the categories and bands its batch touched, then those products' recommendations. The
 * touched lists themselves (every node of every line) are let go here, before the recompute holds memory of its own.
 */
async function readJobScope(batch: Batch): Promise<{ scope: BandScope; skus: string[] }> {
  const touched = await readTouched(batch);
  return { scope: touchedScope(touched), skus: touchedSkus(touched) };
}

/** The products whose recommendations a job recomputes: those it touched, and every one listed in a category it touched. */
async function repricedSkus(workspaceId: string, scope: BandScope, touched: readonly string[]): Promise<string[]> {
  const members = await Promise.all(scope.categories.map((category) => categorySkus(workspaceId, category)));
  return [...new Set([...touched, ...members.flat()])].sort();
}

/**
 * A batch still `draining` when its bands job arrives, within the window in which its drain may still mark it
 * drained: past it, the drain faulted there, and its redelivery sends a job of its own when it finishes.
 */
function drainStillFinishing(batch: Batch, invocation: DrainInvocation): boolean {
  return batch.status === 'draining' && clockOf(invocation)().getTime() - Date.parse(invocation.message.sentAt) < COMMIT_RACE_WINDOW_MS;
}

/** The batch once its drain's last write has landed, read again a few times (1 RRU each) if the job came first. */
async function settledDrain(batch: Batch, invocation: DrainInvocation): Promise<Batch> {
  let current = batch;
  for (let check = 0; drainStillFinishing(current, invocation) && check < DRAINED_RECHECKS; check++) {
    await new Promise((resolve) => setTimeout(resolve, DRAINED_RECHECK_MS));
    current = (await getBatch(batch.workspaceId, batch.batchId)) ?? current;
  }
  return current;
}

/** What the job answers without running: a bounce, an ignore or a park; undefined when it runs. */
async function admitBandsJob(batch: Batch, invocation: DrainInvocation): Promise<DrainResult | undefined> {
  // The drain sends this job just before it marks the batch drained, and the job can be quicker: look again shortly.
  if (drainStillFinishing(batch, invocation)) {
    await sendDrainMessage(invocation.message, BOUNCE_DELAY_SECONDS);
    return nothingApplied('bounced');
  }
  if (batch.status !== 'drained' || batch.bandsRecomputedAt) return nothingApplied('ignored');
  if (invocation.receiveCount > DRAIN_ATTEMPTS) return parkBands(batch, invocation, 'each attempt stopped without finishing');
  return undefined;
}

/** Takes the batch's lease, then the workspace's bands lease; answers instead when either is held. */
async function leaseBands(batch: Batch, invocation: DrainInvocation, owner: string): Promise<Batch | DrainResult> {
  const clock = clockOf(invocation);
  const leaseUntil = leaseDeadline(invocation);
  let current: Batch;
  try {
    current = await leaseBatch(batch, 'bands', owner, leaseUntil(), clock());
  } catch (error) {
    if (!(error instanceof BatchLeaseHeld) || invocation.receiveCount < DRAIN_ATTEMPTS) throw error;
    // A copy of the message that the live holder's slowness brought back: a fresh copy carries the job on, should the
    // holder fail, instead of the queue's receive cap parking it.
    await sendDrainMessage(invocation.message, BOUNCE_DELAY_SECONDS);
    return nothingApplied('bounced');
  }
  try {
    await takeBandsLease(current.workspaceId, owner, leaseUntil(), clock().getTime());
  } catch (error) {
    await releaseBatchLease(current, owner).catch(() => undefined);
    if (!(error instanceof BandsLeaseHeld)) throw error;
    // Another batch's bands job, or a rebuild, is recomputing the workspace's bands: this one waits its turn.
    await sendDrainMessage(invocation.message, BANDS_BUSY_DELAY_SECONDS);
    return nothingApplied('bounced');
  }
  return current;
}

function recommendationsUpdated(batch: Batch, skus: readonly string[], clock: () => Date): WebhookEvent {
  const changed = [...new Set(skus)].sort();
  return newEvent(
    'recommendations.updated',
    batch.workspaceId,
    {
      batchId: batch.batchId,
      connectorId: batch.connectorId,
      skuCount: changed.length,
      skus: changed.slice(0, MAX_SKUS_PER_EVENT),
      truncated: changed.length > MAX_SKUS_PER_EVENT,
      updatedAt: clock().toISOString(),
    },
    clock(),
  );
}

/** One leased run of the job: the bands category by category, then the recommendations page by page, each checkpointed. */
class BandsRun {
  current: Batch;
  private categories = 0;
  private readonly owner: string;
  private readonly invocation: DrainInvocation;
  private readonly hooks: DrainHooks;
  private readonly clock: () => Date;
  private readonly leaseUntil: () => number;

  constructor(leased: Batch, owner: string, invocation: DrainInvocation, hooks: DrainHooks) {
    this.current = leased;
    this.owner = owner;
    this.invocation = invocation;
    this.hooks = hooks;
    this.clock = clockOf(invocation);
    this.leaseUntil = leaseDeadline(invocation);
  }

  async run(): Promise<DrainResult> {
    const workspace = await getWorkspace(this.current.workspaceId);
    const { scope, skus } = await readJobScope(this.current);
    if (!this.current.pricesFreshAt) {
      const recompute = await recomputeBands(this.current.workspaceId, pricingSettings(workspace?.pricing), scope, this.clock(), {
        after: this.current.bandCursor,
        shouldStop: () => this.shortOfTime(),
        afterCategory: (category) => this.afterCategory(category),
      });
      if (!recompute.done) return this.continueLater();
      // Price calls read only the bands: they follow the batch now, the stored recommendations after the refresh. A
      // batch that touched no category moved no bands, and instances keep what they cached.
      if (scope.categories.length > 0) {
        await stampBandsChange(
          { workspaceId: this.current.workspaceId, rateLimit: workspace?.rateLimit ?? workspaceDefaults.rateLimit },
          this.clock().getTime(),
        );
      }
      this.current = await markPricesFresh(this.current, this.owner, this.clock());
      await this.hooks.afterPricesFresh?.(this.invocation);
    }
    // The recommendations follow the bands they are priced from: every product of a category whose bands moved, not
    // only those the batch named, so that the overview and the console show what a price call answers.
    const repriced = await repricedSkus(this.current.workspaceId, scope, skus);
    if (!(await this.refresh(workspace, repriced)).done) return this.continueLater();
    const updated = recommendationsUpdated(this.current, repriced, this.clock);
    await finishBands(this.current, this.owner, this.clock(), [updated]);
    reportBandsLag(this.current, this.clock());
    return nothingApplied('recomputed');
  }

  private shortOfTime(): boolean {
    return this.invocation.remainingMs() < MIN_TIME_LEFT_MS;
  }

  private async afterCategory(category: string): Promise<void> {
    this.current = await saveBandsJobCursor(this.current, this.owner, 'bandCursor', category, this.leaseUntil(), this.clock());
    this.categories += 1;
    await this.hooks.afterBandCategory?.(this.categories, this.invocation);
  }

  private refresh(workspace: Workspace, skus: readonly string[]) {
    const cursor = this.current.recommendationCursor;
    return refreshRecommendations(
      {
        workspaceId: this.current.workspaceId,
        baseCurrency: workspace?.baseCurrency ?? workspaceDefaults.baseCurrency,
        pricing: workspace?.pricing,
      },
      skus.filter((sku) => cursor === undefined || sku > cursor),
      this.clock().getTime(),
      {
        shouldStop: () => this.shortOfTime(),
        afterPage: async (lastSku) => {
          this.current = await saveBandsJobCursor(
            this.current,
            this.owner,
            'recommendationCursor',
            lastSku,
            this.leaseUntil(),
            this.clock(),
          );
        },
      },
    );
  }

  private async continueLater(): Promise<DrainResult> {
    const { message } = this.invocation;
    await sendDrainMessage({ ...message, continuation: (message.continuation ?? 0) + 1 });
    await releaseBatchLease(this.current, this.owner);
    return nothingApplied('continued');
  }
}

/**
 * The bands job: after a batch drained, the bands of the categories it touched are recomputed from history, one
 * category at a time with a checkpoint after each, under a lease like the drain's. The batch stays drained whatever
 * happens here; a job given up on is parked in the dead-letter queue, and `bands rebuild` recovers.
 */
export async function runBandsJob(delivered: Batch, invocation: DrainInvocation, hooks: DrainHooks): Promise<DrainResult> {
  const batch = await settledDrain(delivered, invocation);
  const answered = await admitBandsJob(batch, invocation);
  if (answered) return answered;
  const owner = randomUUID();
  const leased = await leaseBands(batch, invocation, owner);
  if ('outcome' in leased) return leased;
  const run = new BandsRun(leased, owner, invocation, hooks);
  try {
    return await run.run();
  } catch (error) {
    await releaseBatchLease(run.current, owner).catch(() => undefined);
    // The worker logs a fault it answers as a failed message; a fault this attempt gives up on is logged with the end.
    appendLogKeys({ attempt: invocation.receiveCount });
    if (invocation.receiveCount >= DRAIN_ATTEMPTS)
      return parkBands(batch, invocation, 'an internal fault; quote the batch id to support', error as Error);
    throw error;
  } finally {
    await releaseBandsLease(run.current.workspaceId, owner).catch(() => undefined);
  }
}
