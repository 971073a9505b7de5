// What each webhook event type reports, in words: the console's choices and the OpenAPI document's webhooks show it.
import { type EventType, MAX_SKUS_PER_EVENT } from './events.ts';

export const eventDescriptions: Readonly<Record<EventType, string>> = {
  'batch.committed': 'A connector committed an ingest batch; its drain is queued.',
  'batch.drained':
    'Every staged record of a batch was applied to the canonical data; bands and recommendations follow. `warnedProducts` counts ' +
    'the products it left with data warnings, held until their data is checked.',
  'batch.failed': 'A batch will never drain: it expired while open, or its drain gave up. `error` is the text its status shows.',
  'recommendations.updated':
    'A bands job refreshed the recommended prices of the products a batch touched. `skus` lists them (sorted) up to ' +
    `${MAX_SKUS_PER_EVENT.toLocaleString('en')}; \`skuCount\` is the full count, and \`truncated\` says whether the list was cut.`,
  'price.approved': 'A price approval was published, with who approved it, the confirmation and the second approver it needed.',
  'price.second_approval': 'An approval that needs a second approver started to wait, was published, superseded or expired.',
  'writeback.pending': 'A write-back task is waiting for one connector to claim it (one event per connector that receives it).',
  'writeback.applied': 'A connector acknowledged a write-back task as applied; the product’s current price is now its price.',
  'writeback.failed': 'A connector acknowledged a write-back task as failed, with its reason.',
  'webhook.test':
    'A test event: sent to one endpoint when an admin asks for it from the console, to check the receiver and its ' +
    'signature check. It reports no change; no endpoint subscribes to it, and it is tried once, never retried.',
};
