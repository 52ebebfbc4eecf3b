/** Why a payload could not be turned back into a JSON object; never carries the plaintext. */
export type DecryptFailure = 'bad_base64' | 'truncated' | 'bad_key' | 'auth_failed' | 'not_json' | 'not_object';

export class DecryptError extends Error {
  readonly reason: DecryptFailure;

  constructor(reason: DecryptFailure) {
    super(`payload could not be decrypted: ${reason}`);
    this.name = 'DecryptError';
    this.reason = reason;
  }
}
