// DynamoDB endpoint discovery inside Lambda: off, standing in for the SDK's support of it.
//
// The DynamoDB client builds an endpoint cache (an LRU map and its iterators) for endpoint discovery, which the
// service never turns on: no call of this SDK version asks for it, and the table is reached at its regional endpoint.
// Bundled, the cache costs every function some 8 KB, so the bundler aliases @aws-sdk/middleware-endpoint-discovery to
// this module, which resolves the same configuration with discovery off and no cache.

/** No environment variable or shared config entry turns discovery on inside a function. */
export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = {
  environmentVariableSelector: (): undefined => undefined,
  configFileSelector: (): undefined => undefined,
  default: undefined,
};

export function resolveEndpointDiscoveryConfig<Input extends object>(
  input: Input,
  { endpointDiscoveryCommandCtor }: { endpointDiscoveryCommandCtor: unknown },
): Input & { endpointDiscoveryEnabled: () => Promise<boolean>; isClientEndpointDiscoveryEnabled: boolean } {
  return Object.assign(input, {
    endpointDiscoveryCommandCtor,
    endpointDiscoveryEnabled: () => Promise.resolve(false),
    isClientEndpointDiscoveryEnabled: false,
  });
}
