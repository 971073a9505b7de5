// GET and POST /console/sign-in, and POST /console/sign-out: the console's sign-in form, signing in with email and password, and signing out.
import type { Context } from 'aws-lambda';
import { consoleRouteEndpoint } from '../shared/console/endpoint.ts';
import { showSignIn, signIn, signOut } from '../shared/console/sign-in.ts';
import type { HttpEvent } from '../shared/http/endpoint.ts';
import { consoleRouteById, routeKey } from '../shared/routes.ts';

const endpoints = new Map([
  [
    routeKey(consoleRouteById('consoleSignInPage')),
    consoleRouteEndpoint('consoleSignInPage', async ({ event, requestId }) => showSignIn(event, requestId)),
  ],
  [
    routeKey(consoleRouteById('consoleSignIn')),
    consoleRouteEndpoint('consoleSignIn', ({ event, requestId, nowMs }) => signIn(event, requestId, nowMs)),
  ],
  [
    routeKey(consoleRouteById('consoleSignOut')),
    consoleRouteEndpoint('consoleSignOut', ({ event, requestId, nowMs }) => signOut(event, requestId, nowMs)),
  ],
]);

/** The three routes share this module; API Gateway's route key says which was asked for. */
export const handler = (event: HttpEvent, context: Context) => {
  const endpoint = endpoints.get(event.routeKey);
  if (!endpoint) throw new Error(`no sign-in route for ${event.routeKey}`);
  return endpoint(event, context);
};
