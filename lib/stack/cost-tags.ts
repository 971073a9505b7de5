// The cost-allocation tags the stack puts on its resources, and the resource types that take none.

/** Resource types the stack leaves untagged: CloudFormation refuses tags on them. */
export const untaggedResourceTypes = ['AWS::CloudWatch::Dashboard'];

/** The cost-allocation tags: every resource carries the first two, every function and its log group one of the others. */
export const costTags = { service: 'service', stage: 'stage', route: 'route', worker: 'worker' } as const;
