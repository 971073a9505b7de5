// The documents' operations: each route's operation object, its key, parameters, body and answers, from the route and its words.
import type { Surface } from '#platform/errors.ts';
import { namedSchemas, ref } from './components.ts';
import { documentSchema } from './convert.ts';
import { answeredAs, errorResponses, errorsOf } from './errors.ts';
import { code, keyAuthOf, keyWords, type RouteRow, securityOf } from './keys.ts';
import type { OperationDoc, ParameterDoc } from './operations.ts';

function parameterObject(parameter: ParameterDoc): Record<string, unknown> {
  const schema = documentSchema(parameter.schema, namedSchemas);
  return {
    name: parameter.name,
    in: parameter.in,
    description: parameter.description,
    required: parameter.required,
    // A list in the query is one parameter, comma-separated, as parseInclude splits it.
    ...(schema.type === 'array' ? { style: 'form', explode: false } : {}),
    schema,
    example: parameter.example,
  };
}

export function operationObject(route: RouteRow, doc: OperationDoc, surface: Surface): Record<string, unknown> {
  const auth = keyAuthOf(route);
  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const described = (doc.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  const missing = pathNames.filter((name) => !described.includes(name as string));
  if (missing.length > 0)
    throw new Error(`route ${route.id}: path parameter ${missing.join(', ')} has no description in its area's file in shared/edge/openapi/operations/`);
  const errorList = errorsOf(route, doc)
    .map(([errorCode]) => answeredAs(errorCode, surface))
    .sort((a, b) => a.status - b.status)
    .map(({ status, code: answered }) => `${status} ${code(answered)}`);
  const { success } = doc;
  const documentsKey = (doc.parameters ?? []).some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
  const documentsReplay = documentsKey && success.replayable && 'idempotency_key_reused' in doc.errors && 'idempotency_key_in_flight' in doc.errors;
  if (route.idempotency !== undefined && !documentsReplay)
    throw new Error(`route ${route.id} takes an Idempotency-Key: its words must document the header, the replay, and its 409 and 422`);
  return {
    operationId: route.id,
    summary: doc.summary,
    description: `${doc.description}\n\n**Key:** ${keyWords(auth)}\n\n**Errors:** ${errorList.join(', ')}.`,
    tags: [doc.tag],
    security: securityOf(auth),
    ...(doc.parameters ? { parameters: doc.parameters.map(parameterObject) } : {}),
    ...(doc.requestBody
      ? {
          requestBody: {
            description: doc.requestBody.description,
            required: doc.requestBody.required,
            content: {
              'application/json': {
                schema: documentSchema(doc.requestBody.schema, namedSchemas),
                ...(doc.requestBody.example === undefined ? {} : { example: doc.requestBody.example }),
              },
            },
          },
        }
      : {}),
    responses: {
      [String(success.status)]: {
        description: success.description,
        headers: {
          'x-request-id': ref('headers', 'RequestId'),
          ...(success.replayable ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}),
        },
        content: { 'application/json': { schema: documentSchema(success.schema, namedSchemas), example: success.example } },
      },
      ...errorResponses(errorsOf(route, doc), surface),
    },
  };
}
