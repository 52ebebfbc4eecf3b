export const MAX_CALLBACK_URL_LENGTH = 2048;

/** Syntax rule of a callback URL: absolute http(s), no embedded credentials, at most 2048 characters. */
export function callbackUrlProblem(url: string): string | null {
  if (url.length > MAX_CALLBACK_URL_LENGTH) return `must be at most ${MAX_CALLBACK_URL_LENGTH} characters`;
  // The URL parser would silently drop or encode these, so the address called would not be the one stored.
  if ([...url].some((c) => c < ' ' || c === '\u007f')) return 'must not contain control characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  return null;
}
