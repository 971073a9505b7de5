// AWS event streams inside Lambda: none, standing in for the SDK's event-stream support.
//
// The SDK's protocol layer loads its event-stream support lazily, for the operations that stream events. None of the
// service's calls does (DynamoDB, SQS and Secrets Manager answer plain requests), yet bundling it costs every function
// some 15 KB, so the bundler aliases @smithy/core/event-streams to this module. Should a streaming operation ever be
// called, it fails at once with a message that says why, rather than with a missing module.
const why = 'AWS event streams are not bundled into the service functions (see shared/platform/lambda-event-streams.ts)';

export class EventStreamSerde {
  constructor() {
    throw new Error(why);
  }
}

export function eventStreamSerdeProvider(): never {
  throw new Error(why);
}
