// The contract's words for write-backs: claiming approved prices, acknowledging them and extending a claim.
import { AckCountsSchema, AckRequestSchema, ClaimRequestSchema, ClaimResponseSchema, ExtendRequestSchema, ExtendResponseSchema } from '#shared/writebacks/schema.ts';
import { TaskIdParameterSchema } from '#edge/openapi/inputs.ts';
import { operation } from './doc.ts';
import { CONNECTOR_ID, TASK_ID, RECOMMENDATION_DECISION_ID } from './examples.ts';

const exampleTask = {
  id: TASK_ID,
  productSku: 'BOLT-10',
  productExternalId: 'ERP-881',
  priceCents: 189,
  currency: 'USD',
  leaseUntil: '2026-10-05T09:31:00.000Z',
  target: { connectorId: CONNECTOR_ID, channel: 'Demo Seller ERP' },
  exchangeRateToBase: 1,
  reasonSummary: 'Approved at 1.89 over the recommended 1.68 (segment target 28.57% · final 28.57%)',
  pricingDecisionId: RECOMMENDATION_DECISION_ID,
  approvalId: 'apv_2Hq8WnR5tLc1Vb9XpZ3kMd',
  sequence: 4,
};

export const writebackOperations = {
  claimWritebacks: operation({
    summary: 'Claim write-back tasks',
    description:
      'Leases up to `limit` of the calling connector’s claimable tasks, oldest first, for `leaseSeconds`: pending ' +
      'tasks, and tasks whose lease ran out. No other claim gets them before `leaseUntil`. One SKU’s tasks go to a ' +
      'connector one at a time, oldest approval first: while the connector holds a live lease on a task of a SKU, a ' +
      'newer approval’s task of that SKU is not claimable until the older one is acknowledged or its lease runs out; ' +
      'a task a newer approval has superseded is cancelled rather than leased. Each task’s `sequence` grows with each ' +
      'approval of its SKU, so that an ERP can refuse a price older than one it applied. The body may be left out ' +
      '(10 tasks for 300 seconds); none claimable is `{"tasks": []}`.',
    tag: 'Write-backs',
    requestBody: {
      schema: ClaimRequestSchema,
      required: false,
      description: 'How many tasks, for how long.',
      example: { limit: 10, leaseSeconds: 60 },
    },
    success: {
      status: 200,
      description: 'The tasks leased, oldest first.',
      schema: ClaimResponseSchema,
      example: { tasks: [exampleTask] },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: '`limit` or `leaseSeconds` is not an integer in its range, or the body has another field; `param` names it.',
    },
  }),

  ackWritebacks: operation({
    summary: 'Acknowledge write-back tasks',
    description:
      'Reports each leased task as applied (`ok: true`: the product’s current price becomes the task’s) or failed ' +
      '(`ok: false`, with the connector’s `error` kept; a failed task is not retried). Each result is counted once: ' +
      '`applied`, `failed`, `expired` (its lease ran out: nothing changes, and the task can be claimed again) or ' +
      '`ignored` (an unknown id, another connector’s task, a task not leased, an id repeated in the call). A task ' +
      'applied after a task of a newer approval of its SKU (a higher `sequence`) was applied is counted as applied and ' +
      'recorded so, but the product’s current price stays the newer one. The same ack sent again counts the same and ' +
      'changes nothing.',
    tag: 'Write-backs',
    requestBody: {
      schema: AckRequestSchema,
      required: true,
      description: '1 to 500 results.',
      example: {
        results: [
          { id: TASK_ID, ok: true },
          { id: 'wb_2Hd8KqP0sVn5Yt3MfJ6wRc', ok: false, error: 'SAP rejected the price: the material is locked.' },
        ],
      },
    },
    success: {
      status: 200,
      description: 'How each result was counted.',
      schema: AckCountsSchema,
      example: { applied: 1, failed: 1, expired: 0, ignored: 0 },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: 'The body is malformed or past a bound (1 to 500 results, `error` of at most 1,000 characters); `param` names it.',
    },
  }),

  extendWriteback: operation({
    summary: 'Extend a write-back lease',
    description:
      'Moves the end of the caller’s live lease on a task to `leaseSeconds` from now, for a worker that needs longer. ' +
      'A task a newer approval of its SKU has superseded is cancelled instead, and answers 409: a worker renews ' +
      'before it starts a task to learn this. While the task’s price is being applied, send `running: true`: the lease ' +
      'is then renewed even when the task was superseded (cancelling it would not stop the command), and the newer ' +
      'task of the SKU waits until this one is acknowledged or its lease runs out. The body may be left out (300 seconds).',
    tag: 'Write-backs',
    parameters: [
      {
        name: 'id',
        in: 'path',
        description: 'The task’s id, as the claim answered it.',
        required: true,
        schema: TaskIdParameterSchema,
        example: TASK_ID,
      },
    ],
    requestBody: {
      schema: ExtendRequestSchema,
      required: false,
      description: 'The new lease, from now, and whether the task is being applied now.',
      example: { leaseSeconds: 300, running: true },
    },
    success: {
      status: 200,
      description: 'The task with its new `leaseUntil`.',
      schema: ExtendResponseSchema,
      example: { task: { ...exampleTask, leaseUntil: '2026-10-05T09:35:00.000Z' } },
    },
    errors: {
      invalid_json: 'The body is not JSON.',
      invalid_request: '`leaseSeconds` is not an integer from 1 to 3600, or the body has another field; `param` names it.',
      writeback_lease_expired: 'The caller holds no live lease on the task: the lease ran out, it is not leased, the id is unknown, or a newer approval superseded it.',
    },
  }),
};
