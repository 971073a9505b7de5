// Ingest batches: the record of a batch and the states it moves through.
import * as v from 'valibot';

export const BatchStatusSchema = v.picklist(['open', 'committed', 'draining', 'drained', 'failed']);
export type BatchStatus = v.InferOutput<typeof BatchStatusSchema>;

export const EntityKindSchema = v.picklist(['product', 'customer', 'quote', 'order']);
export type EntityKind = v.InferOutput<typeof EntityKindSchema>;

export const BatchSchema = v.object({
  batchId: v.pipe(v.string(), v.uuid()),
  workspaceId: v.string(),
  /** A batch belongs to the connector that opened it; no other connector can see it. */
  connectorId: v.string(),
  status: BatchStatusSchema,
  entities: v.array(EntityKindSchema),
  recordCount: v.pipe(v.number(), v.safeInteger()),
  skippedOverCap: v.pipe(v.number(), v.safeInteger()),
  createdAt: v.string(),
});
export type Batch = v.InferOutput<typeof BatchSchema>;
