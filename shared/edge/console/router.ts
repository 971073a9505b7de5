// The console's router: matches a page by its path, loads the session, checks the CSRF token and the action's role, and renders the page in the layout.
import type { HttpEvent, HttpResult } from '#edge/http/endpoint.ts';
import type { ConsoleEndpointRequest } from './endpoint.ts';
import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/observability.ts';
import { type Html, html } from './html.ts';
import { documentFrame, layout } from './layout.ts';
import { checkFeatureEnabled, checkWorkspaceActive } from '#shared/workspaces/admission.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import type { ConsoleContext, ConsolePage, PageAction, PageView } from './page.ts';
import { downloadAnswer, htmlAnswer, isConsoleLocation, redirect } from './responses.ts';
import {
  clearFlash,
  csrfTokenMatches,
  leaveForNextView,
  readCookies,
  readSession,
  sealReveal,
  SESSION_COOKIE,
  type Session,
  takeReveal,
} from './sessions.ts';
import { PASSWORD_PATH } from './users.ts';

/** A console form is a few fields; anything larger is not one of ours. */
const MAX_FORM_BYTES = 64 * 1024;

/** The fields of a url-encoded form post; a repeated field keeps its values joined by commas, as checkboxes send them. */
export function readForm(event: Pick<HttpEvent, 'body' | 'isBase64Encoded' | 'headers'>): Record<string, string> | undefined {
  const type = (event.headers?.['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  const text = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) return undefined;
  const form: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(text)) form[name] = name in form ? `${form[name]},${value}` : value;
  return form;
}

interface CompiledPage {
  readonly page: ConsolePage;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(page: ConsolePage): CompiledPage {
  const names: string[] = [];
  const source = page.path
    .split('/')
    .map((segment) => {
      const param = /^\{([^}+]+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { page, pattern: new RegExp(`^${source}$`), names };
}

/** The page whose path the request's path matches, with its parameters decoded; a literal path wins over a pattern. */
export function matchPage(pages: readonly ConsolePage[], path: string): { page: ConsolePage; params: Record<string, string> } | undefined {
  const compiled = pages.map(compile).sort((a, b) => a.names.length - b.names.length);
  for (const candidate of compiled) {
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    try {
      candidate.names.forEach((name, index) => {
        params[name] = decodeURIComponent(match[index + 1] ?? '');
      });
    } catch {
      return undefined;
    }
    return { page: candidate.page, params };
  }
  return undefined;
}

function normalPath(rawPath: string): string {
  return rawPath.length > '/console'.length && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
}

/** A page of its own for what went wrong, still in the layout so that the person can go on from it. */
function problemView(title: string, message: string): PageView {
  return {
    title,
    body: html`<h1>${title}</h1>
      <p class="error" role="alert">${message}</p>
      <p><a href="/console">Back to the console</a></p>`,
  };
}

export interface ConsoleRequest {
  readonly event: HttpEvent;
  readonly requestId: string;
  readonly nowMs: number;
  /** The pages this function serves; a path none of them has is answered 404 in the layout. */
  readonly pages: readonly ConsolePage[];
  /** Told who is signed in, once the session is read: the handler charges the request to their workspace. */
  readonly onSession?: (user: ConsoleContext['user']) => void;
}

/** Serves one GET or POST of a console page; never throws for what a person can cause. */
export async function serveConsole({ event, requestId, nowMs, pages, onSession }: ConsoleRequest): Promise<HttpResult> {
  const path = normalPath(event.rawPath);
  // A HEAD reads the page as a GET does, and changes nothing (its notice stays for the next view).
  const method = event.requestContext.http.method === 'HEAD' ? 'GET' : event.requestContext.http.method;
  const head = event.requestContext.http.method === 'HEAD';
  const sessionId = readCookies(event.cookies, event.headers?.cookie).get(SESSION_COOKIE);
  const session = await readSession(sessionId, nowMs);
  if (!session || !sessionId) {
    // Nothing runs without a session: a post is turned to the sign-in page as a visit is, and changes nothing.
    const next = method === 'GET' ? `?next=${encodeURIComponent(path + (event.rawQueryString ? `?${event.rawQueryString}` : ''))}` : '';
    return redirect(`/console/sign-in${next}`, requestId);
  }
  onSession?.(session.user);
  // A one-time password is someone else's secret too: nothing but choosing one's own until it is replaced.
  if (session.user.mustChangePassword && path !== PASSWORD_PATH) return redirect(PASSWORD_PATH, requestId);
  const query = new URLSearchParams(event.rawQueryString ?? '');
  const matched = matchPage(pages, path);
  // The notice comes from the session, never from the address: a link cannot put words in the console's mouth.
  const notice = method === 'GET' && !head ? session.flash : undefined;
  if (notice) await clearFlash(session.sessionIdHash, notice);
  // A secret is opened only with the cookie's id, by the one page view that takes it off the session: never a HEAD nor a download.
  const revealedTo = async (ctx: ConsoleContext): Promise<ConsoleContext> => {
    const reveal = !head && session.reveal ? await takeReveal(sessionId, session.reveal, path) : undefined;
    return reveal ? { ...ctx, reveal } : ctx;
  };
  const render = (status: number, view: PageView, ctx: ConsoleContext): HttpResult =>
    htmlAnswer(status, layout({ ctx, currentPath: path, view, ...(notice ? { notice } : {}) }), requestId);
  const ctx: ConsoleContext = {
    user: session.user,
    params: matched?.params ?? {},
    query,
    csrfToken: session.csrfToken,
    nowMs,
    sessionIdHash: session.sessionIdHash,
  };
  if (!matched) return render(404, problemView('Page not found', 'The console has no page at this address.'), ctx);
  try {
    if (method === 'GET') {
      const file = await matched.page.download?.(ctx);
      if (file) return downloadAnswer(file, requestId);
      const view = await matched.page.read(await revealedTo(ctx));
      return render(view.status ?? 200, view, ctx);
    }
    return await runAction(matched.page, ctx, { session, sessionId }, event, requestId, render);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return render(404, problemView('Not found', error.message), ctx);
    if (error instanceof ApiError && error.status === 403) return render(403, problemView('Not allowed', error.message), ctx);
    if (error instanceof ApiError && error.status < 500) return render(422, problemView('That did not work', error.message), ctx);
    logger.error('console page failed', { error: error as Error, path });
    return render(
      500,
      problemView('Something went wrong', `The console could not do that. Quote request ${requestId} if you report it.`),
      ctx,
    );
  }
}

async function runAction(
  page: ConsolePage,
  ctx: ConsoleContext,
  { session, sessionId }: { readonly session: Session; readonly sessionId: string },
  event: HttpEvent,
  requestId: string,
  render: (status: number, view: PageView, ctx: ConsoleContext) => HttpResult,
): Promise<HttpResult> {
  const form = readForm(event);
  // The token before anything else: a post from another site changes nothing, whatever it asks for.
  if (!form || !csrfTokenMatches(session.csrfToken, form._csrf)) {
    return render(
      403,
      problemView(
        'Form refused',
        'This form did not come from your console session (its security token is missing or stale). Reload the page and try again.',
      ),
      ctx,
    );
  }
  const action = page.actions?.[form._action ?? ''];
  if (!action) return render(400, problemView('Unknown action', 'This page has no such form.'), ctx);
  if (action.role !== 'any' && !ctx.user.roles.includes(action.role)) {
    return render(403, problemView('Not allowed', `This needs the ${action.role} role, which your user does not have.`), ctx);
  }
  const unknownId = malformedIdField(form);
  if (unknownId) return render(404, problemView('Not found', `There is no such ${unknownId.replace(/Id$/, '')} here.`), ctx);
  const refusal = await workspaceRefusal(ctx.user.workspaceId, action);
  if (refusal) return render(refusal.status, problemView('Not allowed now', refusal.message), ctx);
  const outcome = await action.run(ctx, form);
  if (outcome.kind === 'render') return render(outcome.status, outcome.view, ctx);
  if (outcome.kind === 'show') return render(200, outcome.view, ctx);
  const location = isConsoleLocation(outcome.location) ? outcome.location : '/console';
  const reveal = outcome.reveal ? sealReveal(sessionId, normalPath(location.split('?')[0] ?? location), outcome.reveal) : undefined;
  await leaveForNextView(session.sessionIdHash, { notice: outcome.notice, reveal });
  return redirect(location, requestId);
}

/** What the service's ids look like (`key_…`, `evt_…`, `we_…`): a prefix and 22 base62 characters. */
const ID_SHAPE = /^[a-z]{2,4}_[0-9A-Za-z]{22}$/;

/**
 * The first form field named as an id (`keyId`, `eventId`, …) whose value is no id of the service: such a thing
 * cannot exist, so it is answered 404 before any read, whatever its length or characters. Empty means none chosen.
 */
export function malformedIdField(form: Readonly<Record<string, string>>): string | undefined {
  return Object.keys(form).find((name) => /^[a-z]+Id$/.test(name) && form[name] !== '' && !ID_SHAPE.test(form[name] ?? ''));
}

/** A form changes nothing in an inactive workspace, nor a feature's work while the feature is off: the API's own checks. */
async function workspaceRefusal(workspaceId: string, action: PageAction): Promise<ApiError | undefined> {
  const workspace = await getWorkspace(workspaceId);
  try {
    if (!workspace) throw new ApiError('subscription_inactive', 'The workspace is not active.');
    checkWorkspaceActive(workspace);
    if (action.feature) checkFeatureEnabled(workspace, action.feature);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  return undefined;
}

/** The page for a request with no session at all, in the frame without navigation: sign-in's own layout. */
export function bareFrame(title: string, main: Html): Html {
  return documentFrame(title, html`<header class="site-header"><a class="brand" href="/console">Pricing console</a></header>`, main);
}

/** A console route answered by these pages, its work charged to the signed-in user's workspace. */
export function servePages(pages: readonly ConsolePage[]) {
  return ({ event, requestId, nowMs, chargeTo }: ConsoleEndpointRequest): Promise<HttpResult> =>
    serveConsole({ event, requestId, nowMs, pages, onSession: (user) => chargeTo(user.workspaceId) });
}
