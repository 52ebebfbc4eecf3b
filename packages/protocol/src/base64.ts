import { DecryptError } from './DecryptError.ts';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 decoding: Node's decoder silently skips invalid characters, which would hide tampering. */
export function decodeBase64Strict(text: string): Buffer {
  if (typeof text !== 'string' || text.length === 0 || !BASE64.test(text)) throw new DecryptError('bad_base64');
  return Buffer.from(text, 'base64');
}
