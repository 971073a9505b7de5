// Connectors: the ERP or CRM integrations of a workspace that ingest data and apply write-backs.
import * as v from 'valibot';

export const ConnectorSchema = v.object({
  connectorId: v.string(),
  workspaceId: v.string(),
  name: v.pipe(v.string(), v.minLength(1)),
  /** Approved prices become write-back tasks only for connectors that receive them. */
  receivesWritebacks: v.boolean(),
  createdAt: v.string(),
});
export type Connector = v.InferOutput<typeof ConnectorSchema>;
