// The console's keys, apart from the API's, so that an API function bundles none of them.
import { keyDigest, type PrimaryKey } from './key-parts.ts';

/**
 * The items of the console and the listings it reads, apart from `keys` so that the API's functions, which import
 * `keys` whole, do not carry them: console users, sessions and sign-in counters.
 */
export const consoleKeys = {
  /**
   * A console user's credentials, keyed by the email (lowercased) they sign in with: emails are unique across
   * workspaces, and sign-in is one GetItem. Each user is its own partition, as API keys are.
   */
  consoleUser: (email: string): PrimaryKey => ({ PK: `CONSOLEUSER#${email}`, SK: 'USER' }),
  /** A console user as the workspace's listing shows it, without the password hash. */
  consoleUserListing: (workspaceId: string, email: string): PrimaryKey => ({
    PK: `WS#${workspaceId}`,
    SK: `${CONSOLE_USER_LISTING_PREFIX}${email}`,
  }),
  consoleUserListingPrefix: (workspaceId: string) => ({ PK: `WS#${workspaceId}`, SKPrefix: CONSOLE_USER_LISTING_PREFIX }),
  /** A console session, keyed by the SHA-256 of its id: the cookie's value is never stored. Expires by TTL. */
  consoleSession: (sessionIdHash: string): PrimaryKey => ({ PK: `CONSOLESESSION#${sessionIdHash}`, SK: 'SESSION' }),
  /**
   * Sign-in attempts not yet known good of one account at one source address (email and address), or of one source
   * address, in one fixed window: a counter item that expires by TTL when its window is over.
   */
  signInFailures: (subject: 'accountAtAddress' | 'address', value: string, window: number): PrimaryKey => ({
    PK: `SIGNIN#${subject}#${keyDigest(value)}`,
    SK: `WINDOW#${window}`,
  }),
} as const;

const CONSOLE_USER_LISTING_PREFIX = 'CONSOLEUSER#';
