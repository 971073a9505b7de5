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
   * Password checks not yet known good in one fixed window: of one account at one source address (email and
   * address), of one source address, of one account from every address not known to it (`account`), or of a
   * signed-in user's current password in Settings → Password (`passwordCheck`, by user id). A counter item that
   * expires by TTL when its window is over.
   */
  signInFailures: (subject: 'accountAtAddress' | 'address' | 'account' | 'passwordCheck', value: string, window: number): PrimaryKey => ({
    PK: `SIGNIN#${subject}#${keyDigest(value)}`,
    SK: `WINDOW#${window}`,
  }),
  /**
   * A browser an account has signed in from, keyed by the SHA-256 of the device cookie's value (never stored): its
   * sign-ins are not held when the account's attempts from everywhere reach their limit. Expires by TTL.
   */
  consoleDevice: (deviceIdHash: string): PrimaryKey => ({ PK: `CONSOLEDEVICE#${deviceIdHash}`, SK: 'DEVICE' }),
  /**
   * A bulk approval's round, keyed by the one-time token its confirmation step rendered (`bulk_…`): the first send
   * claims it, and its result is kept for any later send of the same confirmation to show. Each round is its own
   * partition, as a token is used once. Expires by TTL.
   */
  bulkRound: (workspaceId: string, bulkId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#BULKROUND#${bulkId}`, SK: 'ROUND' }),
} as const;

const CONSOLE_USER_LISTING_PREFIX = 'CONSOLEUSER#';
