// The admin CLI's `webhook` commands: register, list, change, delete an endpoint and rotate its secret, as the overview routes do; and its deliveries and redelivery.
import * as v from 'valibot';
import { endpointView, SubscribableEventTypeSchema, subscribableEventTypes } from '#shared/webhooks/endpoint-schema.ts';
import type { DeliveryAttempt, DeliverySummary } from '#shared/webhooks/delivery-schema.ts';
import { DeliveryStatusSchema } from '#shared/webhooks/delivery-schema.ts';
import type { WebhookEndpoint } from '#shared/webhooks/endpoint-schema.ts';
import { type AdminArguments, type AdminCommand, UsageError } from '#lib/admin/command.ts';
import type { AdminOption } from '#lib/admin/options.ts';

/** The readers every webhook command shares; each refuses a contradiction and a missing workspace first. */
function webhookArguments(args: AdminArguments) {
  const { values } = args;
  const text = (option: AdminOption): string | undefined => {
    const value = values[option];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw new UsageError(`--${option} needs a value`);
    return value;
  };
  const required = (option: AdminOption): string => {
    const value = text(option);
    if (value === undefined) throw new UsageError(`--${option} is required`);
    return value;
  };
  const events = (): string[] | undefined => {
    const value = text('events');
    if (value === undefined) return undefined;
    const types = value.split(',').map((item) => item.trim());
    for (const type of types) {
      if (!v.is(SubscribableEventTypeSchema, type))
        throw new UsageError(`invalid --events ${JSON.stringify(type)}: expected ${subscribableEventTypes.join(', ')}`);
    }
    if (new Set(types).size !== types.length) throw new UsageError('--events names an event type twice');
    return types;
  };
  if (values.enable && values.disable) throw new UsageError('--enable and --disable contradict each other');
  const workspaceId = required('workspace');
  return { values, target: args.target, workspaceId, text, required, events };
}

async function check() {
  const { loopbackHttpAllowed } = await import('#shared/webhooks/url-guard.ts');
  return { allowLoopbackHttp: loopbackHttpAllowed() };
}

const repository = () => import('#shared/webhooks/endpoints.ts');

export const webhookCommands: readonly AdminCommand[] = [
  {
    name: 'webhook create',
    usage: `  webhook create --workspace W --url URL --events batch.drained,price.approved[,…] [--description D] [--disable]
                                        prints the signing secret once`,
    options: ['workspace', 'url', 'events', 'description', 'disable'],
    prepare(args) {
      const { values, workspaceId, text, required, events } = webhookArguments(args);
      const input = { url: required('url'), eventTypes: events() ?? [], description: text('description'), enabled: !values.disable };
      if (input.eventTypes.length === 0) throw new UsageError('--events is required');
      return async () => {
        const now = Date.now();
        const { endpoint, secret } = await (await repository()).createEndpoint(workspaceId, input, await check(), now);
        return {
          json: { ...endpointView(endpoint, now), secret },
          text: `Created webhook endpoint ${endpoint.endpointId} for ${endpoint.url} (${endpoint.eventTypes.join(', ')}).\nIts signing secret is shown this once; store it now:\n${secret}`,
        };
      };
    },
  },
  {
    name: 'webhook list',
    usage: '  webhook list --workspace W',
    options: ['workspace'],
    prepare(args) {
      const { workspaceId } = webhookArguments(args);
      return async () => {
        const now = Date.now();
        const endpoints = await (await repository()).listEndpoints(workspaceId);
        return {
          json: endpoints.map((endpoint) => endpointView(endpoint, now)),
          text: endpoints.length === 0 ? `No webhook endpoints in workspace ${workspaceId}` : endpoints.map(line).join('\n'),
        };
      };
    },
  },
  {
    name: 'webhook update',
    usage: '  webhook update we_… --workspace W [--url URL] [--events …] [--description D] [--enable|--disable]',
    target: 'the endpoint id',
    options: ['workspace', 'url', 'events', 'description', 'enable', 'disable'],
    prepare(args) {
      const { values, target, workspaceId, text, events } = webhookArguments(args);
      const changes = {
        url: text('url'),
        eventTypes: events(),
        description: text('description'),
        enabled: values.enable ? true : values.disable ? false : undefined,
      };
      if (Object.values(changes).every((value) => value === undefined)) throw new UsageError('webhook update needs something to change');
      return async () => {
        const now = Date.now();
        const endpoint = await (await repository()).updateEndpoint(workspaceId, target, changes, await check(), now);
        return { json: endpointView(endpoint, now), text: line(endpoint) };
      };
    },
  },
  {
    name: 'webhook delete',
    usage: '  webhook delete we_… --workspace W',
    target: 'the endpoint id',
    options: ['workspace'],
    prepare(args) {
      const { target, workspaceId } = webhookArguments(args);
      return async () => {
        await (await repository()).deleteEndpoint(workspaceId, target);
        return { json: { id: target, deleted: true }, text: `Deleted webhook endpoint ${target}` };
      };
    },
  },
  {
    name: 'webhook rotate-secret',
    usage: '  webhook rotate-secret we_… --workspace W   prints the new secret once; the old one signs too for 24 h',
    target: 'the endpoint id',
    options: ['workspace'],
    prepare(args) {
      const { target, workspaceId } = webhookArguments(args);
      return async () => {
        const { endpoint, secret } = await (await repository()).rotateSecret(workspaceId, target, Date.now());
        return {
          json: { id: endpoint.endpointId, secret, previous_secret_expires_at: endpoint.previousSecretExpiresAt },
          text: `Rotated the signing secret of ${endpoint.endpointId}; the previous one also signs until ${endpoint.previousSecretExpiresAt}.\nThe new secret is shown this once; store it now:\n${secret}`,
        };
      };
    },
  },
  {
    name: 'webhook deliveries',
    usage: `  webhook deliveries we_… --workspace W [--limit 50] [--status pending|delivered|parked]
                                        the endpoint's deliveries, newest first
  webhook deliveries we_… --workspace W --event evt_…  every attempt of one delivery: status, latency, answer`,
    target: 'the endpoint id',
    options: ['workspace', 'event', 'limit', 'status'],
    prepare(args) {
      const { target, workspaceId, text } = webhookArguments(args);
      const eventId = text('event');
      const limitText = text('limit');
      const limit = limitText === undefined ? 50 : Number(limitText);
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
      const status = text('status');
      if (status !== undefined && !v.is(DeliveryStatusSchema, status))
        throw new UsageError('--status must be pending, delivered or parked');
      if (eventId !== undefined && (limitText !== undefined || status !== undefined))
        throw new UsageError('--limit and --status list deliveries; with --event the attempts are all shown');
      return async () => {
        const delivery = await import('#shared/webhooks/attempt-log.ts');
        if (eventId !== undefined) {
          const attempts = await delivery.listAttempts(workspaceId, target, eventId);
          return {
            json: attempts,
            text: attempts.length === 0 ? `No attempts of ${eventId} at ${target}` : attempts.map(attemptLine).join('\n'),
          };
        }
        // The overview's route lists with the same function, a page at a time.
        const { deliveries } = await delivery.listDeliveries(workspaceId, target, { limit, ...(status === undefined ? {} : { status }) });
        return {
          json: deliveries,
          text: deliveries.length === 0 ? `No deliveries to ${target} in the last 30 days` : deliveries.map(deliveryLine).join('\n'),
        };
      };
    },
  },
  {
    name: 'webhook redeliver',
    // The event types close the webhook commands' lines of the usage.
    usage: `  webhook redeliver we_… --workspace W --event evt_…   sends the event again, same webhook-id, new retry run
  webhook redeliver we_… --workspace W --parked        sends every parked delivery again, up to the redelivery
                                        limit (20 a minute per endpoint); run again a minute later for the rest
  Event types: ${subscribableEventTypes.join(', ')}`,
    target: 'the endpoint id',
    options: ['workspace', 'event', 'parked'],
    prepare(args) {
      const { target, workspaceId, text, values } = webhookArguments(args);
      const eventId = text('event');
      if ((eventId === undefined) === !values.parked)
        throw new UsageError('webhook redeliver needs exactly one of --event evt_… or --parked');
      if (values.parked) return () => redeliverParked(workspaceId, target);
      return async () => {
        const { redeliver } = await import('#shared/webhooks/delivery.ts');
        const queued = await redeliver(workspaceId, target, eventId as string, Date.now());
        return {
          json: queued,
          text: `Queued ${queued.eventType} ${eventId} for ${target} again (attempt ${queued.attempts + 1}), with the same webhook-id`,
        };
      };
    },
  },
];

/**
 * Every parked delivery of the endpoint sent again, oldest event first, until the endpoint's redelivery limit stops
 * it: what is left stays parked, and the same command a minute later sends it.
 */
async function redeliverParked(workspaceId: string, endpointId: string) {
  const { ApiError } = await import('#platform/errors.ts');
  const { getEndpoint } = await repository();
  if (!(await getEndpoint(workspaceId, endpointId))) throw new Error(`no webhook endpoint ${endpointId} in workspace ${workspaceId}`);
  const { listDeliveries } = await import('#shared/webhooks/attempt-log.ts');
  const { redeliver } = await import('#shared/webhooks/delivery.ts');
  const parked: string[] = [];
  let startingAfter: string | undefined;
  do {
    const page = await listDeliveries(workspaceId, endpointId, {
      limit: 100,
      status: 'parked',
      ...(startingAfter ? { startingAfter } : {}),
    });
    parked.push(...page.deliveries.map((delivery) => delivery.eventId));
    startingAfter = page.next;
  } while (startingAfter);
  const redelivered: string[] = [];
  for (const eventId of parked.reverse()) {
    try {
      await redeliver(workspaceId, endpointId, eventId, Date.now());
    } catch (error) {
      if (error instanceof ApiError && error.code === 'rate_limited') break;
      throw error;
    }
    redelivered.push(eventId);
  }
  const left = parked.length - redelivered.length;
  return {
    json: { endpointId, redelivered, left },
    text:
      `Queued ${redelivered.length} of ${parked.length} parked deliveries to ${endpointId} again` +
      (left > 0 ? `; the redelivery limit held back ${left}: run the same command again in a minute` : ''),
  };
}

function deliveryLine(delivery: DeliverySummary): string {
  const last = delivery.lastStatus ?? delivery.lastError ?? '';
  const next = delivery.nextAttemptAt ? `  next ${delivery.nextAttemptAt}` : '';
  return `${delivery.eventId}  ${delivery.eventType}  ${delivery.status}  ${delivery.attempts} attempt(s)  ${last}${next}`;
}

function attemptLine(attempt: DeliveryAttempt): string {
  const outcome = attempt.status === undefined ? (attempt.error ?? '') : String(attempt.status);
  const answer = attempt.response ? `  ${JSON.stringify(attempt.response.slice(0, 120))}` : '';
  return `#${attempt.seq}  ${attempt.attemptedAt}  ${outcome}  ${attempt.latencyMs} ms${answer}`;
}

function line(endpoint: WebhookEndpoint): string {
  const since = endpoint.failingSince ? ` since ${endpoint.failingSince}` : '';
  return `${endpoint.endpointId}  ${endpoint.status}${since}  ${endpoint.url}  ${endpoint.eventTypes.join(',')}`;
}
