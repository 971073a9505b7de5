// A person's browser, as far as the console's integration tests need one: a cookie jar, signing in, reading a page's CSRF token, posting its forms and following their redirects.
import { inject } from 'vitest';
import { PASSWORD_PATH } from '#edge/console/users.ts';

export interface PageAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A form's post, and the page its 303 led to when it answered one. */
export interface FollowedPost {
  readonly posted: PageAnswer;
  /** The one GET of the post's Location, with the same cookies; undefined when the post answered anything but 303. */
  readonly page?: PageAnswer;
}

/** The `_csrf` field of a page's first form. */
export function csrfTokenOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('the page has no form with a CSRF token');
  return token;
}

export class ConsoleBrowser {
  private readonly jar = new Map<string, string>();
  readonly baseUrl: string;
  constructor(baseUrl: string = inject('stack').gatewayUrl) {
    this.baseUrl = baseUrl;
  }

  get cookies(): ReadonlyMap<string, string> {
    return this.jar;
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    form?: Record<string, string | readonly string[]>,
    headers: Record<string, string> = {},
  ): Promise<PageAnswer> {
    const body = form === undefined ? undefined : new URLSearchParams();
    for (const [name, value] of Object.entries(form ?? {})) for (const item of [value].flat()) body?.append(name, item);
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      body: body?.toString(),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (/Max-Age=0/i.test(line) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  get(path: string): Promise<PageAnswer> {
    return this.request('GET', path);
  }

  /** Posts a form of the page at `path` with the page's own CSRF token, as a person pressing its button would. */
  async submit(path: string, form: Record<string, string | readonly string[]>): Promise<PageAnswer> {
    const page = await this.get(path);
    return this.request('POST', path, { _csrf: csrfTokenOf(page.text), ...form });
  }

  /**
   * Posts as `submit` does, then follows a 303 as a browser would: one GET of its Location with the same cookies. A
   * secret a form makes is shown on that page only, and only in that one view: `page` is the answer that shows it.
   */
  async submitAndFollow(path: string, form: Record<string, string | readonly string[]>): Promise<FollowedPost> {
    const posted = await this.submit(path, form);
    if (posted.status !== 303) return { posted };
    const location = posted.headers.get('location');
    if (!location) throw new Error(`the post to ${path} answered 303 without a Location`);
    return { posted, page: await this.get(location) };
  }

  /**
   * Signs in; a user with a one-time password then chooses their own at once, as the console makes them, unless
   * `firstPassword` is `leave`. Later sign-ins with the one-time password use the chosen one: a test keeps the
   * password it was handed. Answers the sign-in's own answer.
   */
  async signIn(email: string, password: string, options: { firstPassword?: 'choose' | 'leave' } = {}): Promise<PageAnswer> {
    const known = chosenPasswords.get(email);
    const current = known?.oneTime === password ? known.chosen : password;
    const form = await this.get('/console/sign-in');
    const answer = await this.request('POST', '/console/sign-in', {
      _csrf: csrfTokenOf(form.text),
      email,
      password: current,
      next: '/console',
    });
    if (answer.headers.get('location') !== PASSWORD_PATH || options.firstPassword === 'leave') return answer;
    const chosen = ownPasswordFor(password);
    const changed = await this.submit(PASSWORD_PATH, { _action: 'change', current, password: chosen });
    if (changed.status !== 303) throw new Error(`choosing a password at the first sign-in answered ${changed.status}`);
    chosenPasswords.set(email, { oneTime: password, chosen });
    return answer;
  }
}

/** The passwords test users chose at their first sign-in, by email, with the one-time password they replaced. */
const chosenPasswords = new Map<string, { oneTime: string; chosen: string }>();

/** What a test user chooses in place of a one-time password: their own, and never the one they were handed. */
export function ownPasswordFor(oneTime: string): string {
  return `own-${oneTime}`;
}
