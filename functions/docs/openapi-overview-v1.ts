// GET /v1/openapi.json: the OpenAPI document of the overview surface, without a key. Its bundle is the only one that carries it.
import document from '../../openapi/overview-v1.json' with { type: 'json' };
import { documentEndpoint } from '#edge/reference/openapi-document.ts';

export const handler = documentEndpoint('openapiOverview', document);
