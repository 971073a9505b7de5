// What the contract documents say of each route beyond the route table: summary, prose, inputs, answers, error codes and examples, keyed by route id.
import type * as v from 'valibot';
import { docsOperations } from '#edge/openapi/operations/docs.ts';
import { ingestOperations } from '#edge/openapi/operations/ingest.ts';
import { priceOperations } from '#edge/openapi/operations/prices.ts';
import { approvalOperations } from '#edge/openapi/operations/approvals.ts';
import { reportOperations } from '#edge/openapi/operations/reports.ts';
import { webhookOperations } from '#edge/openapi/operations/webhooks.ts';
import { writebackOperations } from '#edge/openapi/operations/writebacks.ts';

export { OPENAPI_VERSION, OpenApiDocumentSchema, type OperationDoc, type ParameterDoc, type SuccessStatus } from '#edge/openapi/operations/doc.ts';
export { undocumentedRoutes } from '#edge/openapi/operations/docs.ts';

/** Each area's words are in operations/; a route of the table with none here fails the documents' build. */
export const operations = {
  ...priceOperations,
  ...approvalOperations,
  ...ingestOperations,
  ...writebackOperations,
  ...webhookOperations,
  ...reportOperations,
  ...docsOperations,
};

export type OperationId = keyof typeof operations;

/** The body an operation answers on success, as its document says. */
export type ResponseOf<TId extends OperationId> = v.InferOutput<(typeof operations)[TId]['success']['schema']>;

/** A handler's success, held to its document: `return { statusCode: 201, body } satisfies DocumentedReply<'openBatch'>`. */
export interface DocumentedReply<TId extends OperationId> {
  readonly statusCode: (typeof operations)[TId]['success']['status'];
  readonly body: ResponseOf<TId>;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Compiles only when every value of `TActual` is valid for `TDocumented` and, at any depth, `TActual` names no field
 * the document lacks (a strict object refuses it): for answers built from types the schemas do not define.
 */
export type Conforms<TActual extends TDocumented & NoFieldBeyond<TActual, TDocumented>, TDocumented> = TActual;

type NoFieldBeyond<TActual, TDocumented> = [ExtraFields<TActual, TDocumented>] extends [never]
  ? unknown
  : { readonly fieldsTheDocumentLacks: ExtraFields<TActual, TDocumented> };

/** The members of the documented union that a value of TActual can be. */
type Matching<TActual, TDocumented> = TDocumented extends unknown ? (TActual extends TDocumented ? TDocumented : never) : never;

type ExtraFields<TActual, TDocumented> = TActual extends readonly (infer TItem)[]
  ? TDocumented extends readonly (infer TDocumentedItem)[]
    ? ExtraFields<TItem, TDocumentedItem>
    : never
  : TActual extends object
    ? {
        [K in keyof TActual]-?: K extends keyof Matching<TActual, TDocumented>
          ? ExtraFields<NonNullable<TActual[K]>, NonNullable<Matching<TActual, TDocumented>[K]>>
          : K;
      }[keyof TActual]
    : never;
