// The headers of what the open routes serve to browsers: the reference page's Content-Security-Policy, and how each answer may be cached.

/** On every open answer: never read as another type than the one sent, and the address never passed on to another site. */
export const openAnswerHeaders: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** A file whose URL names its content's hash: that URL always means these bytes. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** A file asked for without the current hash (an old page, a hand-typed URL), and the OpenAPI documents: a deploy changes them. */
export const SHORT_LIVED = 'public, max-age=300';

/**
 * The style elements Redoc's bundle inserts as it loads, before `Redoc.init` can hand it the nonce: first empty, then
 * filled with perfect-scrollbar's CSS and its own. Allowed by their hashes, which belong to Redoc 2.5.4: an upgrade
 * that changes them shows in the browser test as a violation whose message names the new hash.
 */
export const REDOC_LOAD_STYLE_HASHES: readonly string[] = [
  'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
  'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc=',
];

/**
 * The reference page's policy: scripts only from the service itself, no inline script and no eval; styles from the
 * service, Redoc's own by this response's nonce (styled-components takes it from Redoc's `nonce` option) and its two
 * load-time elements by hash; images from the service or data URLs; the documents fetched from the service; Redoc's
 * search index in a worker it builds from a blob. Nothing may frame the page, set its base or submit a form from it.
 */
export function pagePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}' ${REDOC_LOAD_STYLE_HASHES.map((hash) => `'${hash}'`).join(' ')}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    'worker-src blob:',
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The page carries a fresh nonce in each answer, so no answer may be kept and shown again. */
export function pageHeaders(nonce: string): Readonly<Record<string, string>> {
  return { ...openAnswerHeaders, 'content-security-policy': pagePolicy(nonce), 'cache-control': 'no-store' };
}
