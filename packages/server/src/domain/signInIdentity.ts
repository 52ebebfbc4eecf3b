import { createHash } from 'node:crypto';

/**
 * Sign-in identities, normalised once and used for both the failure throttle and the lookup, so that every
 * spelling of one account counts against that account's limit: with the throttle keyed on what was typed and
 * the lookup on something else, `" a@x.test"`, `"A@x.test "` and `"ａ@x.test"` would each get a fresh counter
 * for the same account.
 *
 * Unicode NFKC folds compatibility forms (fullwidth `ａ`, no-break and ideographic spaces, ligatures) into the
 * plain ones, then surrounding whitespace is removed. NFKC can leave a leading space (`´` becomes a space and a
 * combining accent), so the trim comes after it.
 */
const folded = (raw: string) => raw.normalize('NFKC').trim();

/**
 * An operator's e-mail address as stored and looked up: folded and lower-cased. Lower-casing comes after NFKC,
 * which can produce capitals (`ℌ` is `H`); folded again because lower-casing can leave text NFKC would change.
 */
export const signInEmail = (raw: string): string => folded(folded(raw).toLowerCase());

/** A merchant's API key as looked up: folded, case kept (keys are case-sensitive). */
export const signInApiKey = (raw: string): string => folded(raw);

/**
 * How the audit log names an API key that failed to sign in: a short hash of its normalised form. The API key is
 * half a merchant's credentials and the key of its V1 payloads, so neither it nor a part of it is stored; the
 * hash still lets an operator see repeated attempts on one key and match a key they hold.
 */
export const auditedApiKey = (raw: string): string =>
  `api-key:${createHash('sha256').update(signInApiKey(raw), 'utf8').digest('base64url').slice(0, 12)}`;
