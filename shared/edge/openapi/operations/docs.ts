// The contract's words for the docs: the two OpenAPI documents, and the routes the documents leave out.
import { OPENAPI_VERSION, OpenApiDocumentSchema, operation } from './doc.ts';

export const docsOperations = {
  openapiV1: operation({
    summary: 'This document',
    description: 'The OpenAPI document of `/api/v1`, the one you are reading.',
    tag: 'Contract',
    success: {
      status: 200,
      description: 'The OpenAPI document.',
      schema: OpenApiDocumentSchema,
      example: { openapi: OPENAPI_VERSION, info: { title: 'Pricing service API', version: '1.0.0' }, paths: {} },
    },
    errors: {},
  }),

  openapiOverview: operation({
    summary: 'This document',
    description: 'The OpenAPI document of the overview surface, `/v1`, the one you are reading.',
    tag: 'Contract',
    success: {
      status: 200,
      description: 'The OpenAPI document.',
      schema: OpenApiDocumentSchema,
      example: { openapi: OPENAPI_VERSION, info: { title: 'Pricing service overview API', version: '1.0.0' }, paths: {} },
    },
    errors: {},
  }),
};

/** Routes of the table the documents leave out, and why. */
export const undocumentedRoutes: Readonly<Record<string, string>> = {
  apiReference: 'an HTML page that renders the documents',
  apiReferenceAsset: 'a static asset of that page',
};
