// GET and POST /console/sign-in, and POST /console/sign-out: the console's sign-in form, signing in with email and password, and signing out.
import { consoleRoutesHandler } from '#edge/console/endpoint.ts';
import { showSignIn, signIn, signOut } from '#edge/console/sign-in.ts';

export const handler = consoleRoutesHandler({
  consoleSignInPage: async ({ event, requestId }) => showSignIn(event, requestId),
  consoleSignIn: ({ event, requestId, nowMs }) => signIn(event, requestId, nowMs),
  consoleSignOut: ({ event, requestId, nowMs }) => signOut(event, requestId, nowMs),
});
