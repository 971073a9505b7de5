// GET /api/v1/openapi.json: the OpenAPI document of /api/v1, without a key. Its bundle is the only one that carries it.
import document from '../../openapi/api-v1.json' with { type: 'json' };
import { documentEndpoint } from '#edge/reference/openapi-document.ts';

export const handler = documentEndpoint('openapiV1', document);
