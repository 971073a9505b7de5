// Gives each test worker the environment a Lambda function of the stack would have, pointed at the shared local stack.
import { inject } from 'vitest';
import { handlerEnvironment } from '#lib/local/stack.ts';
import { partitionRegistryEnvironmentName } from './partition-registry.ts';

process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
Object.assign(process.env, handlerEnvironment(inject('stack')));
process.env[partitionRegistryEnvironmentName] = inject('partitionRegistry');
