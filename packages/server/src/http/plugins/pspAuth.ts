import type { OperatorCode } from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import { checkPspSignature, PSP_SIGNATURE_HEADER, type PspSignatureCheck } from '../../domain/pspSignature.ts';
import { AdminError } from '../AdminError.ts';

/** Notifications are small; a larger body is refused (413) before anything is computed over it. */
export const PSP_BODY_LIMIT_BYTES = 64 * 1024;

const REFUSALS: Record<Exclude<PspSignatureCheck, 'ok'>, { code: OperatorCode; message: string }> = {
  missing: { code: 'signature_required', message: 'The Payrail-Signature header is required' },
  malformed: { code: 'signature_invalid', message: 'The Payrail-Signature header must be t=<unix seconds>,v1=<hex>' },
  expired: { code: 'signature_expired', message: 'The signed timestamp is more than 300 seconds from our clock' },
  mismatch: { code: 'signature_invalid', message: 'The signature does not match the body' },
};

/**
 * Signed JSON bodies for the PSP notification routes of this (encapsulated) context: the raw bytes are kept, the
 * `Payrail-Signature` HMAC over them is checked before the body is even parsed (401 otherwise), then the body must
 * be JSON (415) that parses (400). Registered inside its own plugin, so no other route reads bodies this way.
 * The signed timestamp is compared with `clock`, the composition root's.
 */
export function registerSignedBodies(app: FastifyInstance, secret: string, clock: Clock) {
  const raw = new WeakMap<FastifyRequest, Buffer>();
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PSP_BODY_LIMIT_BYTES }, (request, body, done) => {
    raw.set(request, body as Buffer);
    done(null, undefined);
  });
  app.addHook('preValidation', async (request) => {
    const bytes = raw.get(request) ?? Buffer.alloc(0);
    const header = request.headers[PSP_SIGNATURE_HEADER];
    const check = checkPspSignature(
      secret,
      Array.isArray(header) ? header.join(',') : header,
      bytes,
      Math.floor(clock() / 1000),
    );
    if (check !== 'ok') {
      const refusal = REFUSALS[check];
      throw new AdminError(refusal.code, refusal.message);
    }
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (type !== 'application/json') {
      throw new AdminError('unsupported_media_type', 'Send the body as JSON (Content-Type: application/json)');
    }
    request.body = await new Promise<unknown>((resolve, reject) => {
      json(request, bytes.toString('utf8'), (err: Error | null, value?: unknown) => {
        if (err) reject(AdminError.invalid('The body is not valid JSON'));
        else resolve(value);
      });
    });
  });
}
