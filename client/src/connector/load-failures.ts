// Why a load stopped, as the operator reads it: the record's place in its file, or the call that failed, and what became of the batch.
import { locate, type SourcedRecord } from './files.ts';
import type { LoadApi } from './load.ts';

/** Why a load stopped. `committed` says whether the batch was committed, for the caller's message and nothing else. */
export class LoadError extends Error {
  override readonly name = 'LoadError';
  readonly batchId: string | undefined;
  readonly committed: boolean;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(
    message: string,
    fields: {
      batchId?: string | undefined;
      committed?: boolean;
      file?: string;
      line?: number;
      field?: string | undefined;
      cause?: unknown;
    },
  ) {
    super(message, { cause: fields.cause });
    this.batchId = fields.batchId;
    this.committed = fields.committed ?? false;
    this.file = fields.file;
    this.line = fields.line;
    this.field = fields.field;
  }
}

export function uncommitted(batchId: string | undefined): string {
  return batchId ? `Nothing was committed.` : 'Nothing was sent.';
}

/**
 * A load that stops before its commit cancels its open batch, so that nothing it staged lingers for 24 hours; the
 * message says which happened, and how to cancel it when the cancel failed too.
 */
export async function cancelOpenBatch(api: LoadApi, error: LoadError): Promise<LoadError> {
  const { batchId } = error;
  if (error.committed || batchId === undefined) return error;
  let outcome: string;
  try {
    await api.cancelBatch(batchId);
    outcome = `Batch ${batchId} was cancelled, with what it had staged.`;
  } catch (cancelError) {
    outcome =
      `Cancelling batch ${batchId} failed too (${(cancelError as Error).message ?? String(cancelError)}): it is left open, ` +
      `uncommitted; cancel it with POST /api/v1/ingest/batches/${batchId}/cancel, or it expires 24 hours after it was opened.`;
  }
  const { file, line, field } = error;
  return new LoadError(`${error.message} ${outcome}`, {
    batchId,
    ...(file === undefined ? {} : { file }),
    ...(line === undefined ? {} : { line }),
    field,
    cause: error.cause,
  });
}

/** A stage error with a param, from the service or from the same schemas run here, as the place in the file. */
export function recordFailure(
  error: { message: string; param?: string | undefined },
  records: readonly SourcedRecord[],
  batchId: string | undefined,
  cause: unknown,
): LoadError | undefined {
  const place = locate(error.param, records);
  if (!place) return undefined;
  const prefix = /^records\[\d+\]\.?/.exec(error.param ?? '')?.[0] ?? '';
  // The service's message names `records[17].lines[0].costCents`; the file's reader knows the field by its own name.
  const message =
    error.param && place.field ? error.message.replace(error.param, place.field) : error.message.replace(prefix, 'the record');
  return new LoadError(`${place.file}:${place.line}: ${message} ${uncommitted(batchId)}`, { batchId, ...place, cause });
}

export function serviceFailure(error: unknown, doing: string, batchId: string | undefined, after = uncommitted(batchId)): LoadError {
  const { status, code, message } = (error ?? {}) as { status?: number; code?: string; message?: string };
  const answer = status === undefined ? (message ?? String(error)) : `${status} ${code ?? ''}: ${message ?? ''}`.trim();
  // The client has already retried these with backoff; the loader adds no retries of its own on top.
  const retried = status === 429 || status === 503 ? ' after the client retried' : '';
  return new LoadError(`${doing} failed${retried} (${answer}). ${after}`, { batchId, cause: error });
}
