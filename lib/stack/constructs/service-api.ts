// The public HTTP API: its access-logged stage, one route per route-table row and the `$default` fallback route.
import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ConsoleRoute, HttpRoute as RouteRow } from '#edge/routes.ts';
import { constructId } from './construct-id.ts';
import { logRetention } from './service-function.ts';

/**
 * The stage's default route throttling, which each route gets: a backstop against floods that no handler can refuse for
 * free, such as distinct random keys (each costs one read before it is refused). One route's steady rate matches what
 * one DynamoDB partition takes in writes a second (1,000 WCU), because every keyed request writes its workspace's usage
 * item once, refused or not; it is ten workspaces at their default 100 requests a second. docs/operations.md has the
 * reasoning.
 */
export const stageThrottle = { rateLimit: 1000, burstLimit: 1000 } as const;

export interface ServiceApiProps {
  /** Answers every request no route claims. */
  readonly fallbackFunction: IFunction;
  /** Applies to the access log group. */
  readonly removalPolicy: RemovalPolicy;
  /** Encrypts the access log group when the stack is given a customer-managed key. */
  readonly encryptionKey?: IKey;
}

/**
 * API Gateway has no authorizer for the service API keys: each handler checks the key itself (family, scopes,
 * workspace feature), so routes are declared without a gateway authorizer and the finding is acknowledged per route.
 */
function acknowledgeNoGatewayAuthorizer(route: HttpRoute, reason: string): void {
  Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}

export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);

    this.api = new HttpApi(this, 'HttpApi', {
      description: 'Pricing service public API',
      // HttpApi's own default stage takes no access-log settings, so the stage is created below instead.
      createDefaultStage: false,
    });
    const fallbackRoute = new HttpRoute(this, 'FallbackRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: lambdaIntegration('FallbackIntegration', props.fallbackFunction),
    });
    acknowledgeNoGatewayAuthorizer(
      fallbackRoute,
      'The $default route only answers 404 for paths no route claims; it reads and returns no data.',
    );

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: logRetention,
      removalPolicy: props.removalPolicy,
      encryptionKey: props.encryptionKey,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: stageThrottle,
      // Route-level 4xx, 5xx, Count and Latency: the dashboard and the 5xx alarms read them per route.
      detailedMetricsEnabled: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        // Request metadata only: no headers, so API keys never reach the logs.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            sourceIp: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            routeKey: '$context.routeKey',
            method: '$context.httpMethod',
            path: '$context.path',
            status: '$context.status',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationStatus: '$context.integration.status',
            integrationLatency: '$context.integration.latency',
            integrationError: '$context.integration.error',
            // The Lambda request id: the function's log lines, and its X-Ray trace, carry the same id.
            integrationRequestId: '$context.integration.requestId',
          }),
        ),
      },
    });
  }

  addRoute(route: RouteRow | ConsoleRoute, handler: IFunction): void {
    const integration = lambdaIntegration(`${constructId(route.id)}Integration`, handler);
    const httpRoute = new HttpRoute(this, `${constructId(route.id)}Route`, {
      httpApi: this.api,
      routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
      integration,
    });
    acknowledgeNoGatewayAuthorizer(httpRoute, authorizationReason(route));
    if (route.method !== 'GET') return;
    // HEAD wherever GET: the same function answers it, with the GET's status and headers and no body.
    const headRoute = new HttpRoute(this, `${constructId(route.id)}HeadRoute`, {
      httpApi: this.api,
      routeKey: HttpRouteKey.with(route.path, HttpMethod.HEAD),
      integration,
    });
    acknowledgeNoGatewayAuthorizer(headRoute, authorizationReason(route));
  }

  /** The URL clients call; the `$default` stage serves from the root of the endpoint. */
  get url(): string {
    return this.stage.url;
  }
}

function authorizationReason(route: RouteRow | ConsoleRoute): string {
  if (route.surface === 'console') {
    return route.auth === 'session'
      ? `The ${route.id} console handler reads the person's session cookie, and checks the CSRF token and role of every form, before doing anything else.`
      : `The ${route.id} console route is open by design: the sign-in form and its stylesheet, reading no data but the sign-in checks.`;
  }
  return route.auth === 'none'
    ? `The ${route.id} route is open by design: it serves the API's public documents or reference page, holds no grant and reads no data.`
    : `The ${route.id} handler authorizes every request by its service API key before doing anything else.`;
}

function lambdaIntegration(id: string, handler: IFunction): HttpLambdaIntegration {
  return new HttpLambdaIntegration(id, handler, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
}
