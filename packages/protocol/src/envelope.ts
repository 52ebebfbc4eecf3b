import type { CodeDef } from './codes.ts';

/** Payout operations answer in snake_case. */
export interface PayoutEnvelope {
  resp_code: number;
  resp_message: string;
  data?: string;
}

/** Collection operations and the token endpoint answer in camelCase. */
export interface CollectionEnvelope {
  respCode: number;
  respMessage: string;
  data?: string;
}

export interface TokenEnvelope extends CollectionEnvelope {
  expiresIn?: number;
  tokenType?: string;
}

export type EnvelopeStyle = 'payout' | 'collection';

/** Builds the envelope of a style; `data` is the already encrypted text, omitted when absent. */
export function envelope(style: EnvelopeStyle, def: CodeDef, data?: string): PayoutEnvelope | CollectionEnvelope {
  if (style === 'payout') {
    return data === undefined
      ? { resp_code: def.code, resp_message: def.message }
      : { resp_code: def.code, resp_message: def.message, data };
  }
  return data === undefined
    ? { respCode: def.code, respMessage: def.message }
    : { respCode: def.code, respMessage: def.message, data };
}

/** Reads the code and message of either envelope style. */
export function readEnvelope(body: unknown): { code: number; message: string; data?: unknown } | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const code = b.resp_code ?? b.respCode;
  const message = b.resp_message ?? b.respMessage;
  if (typeof code !== 'number') return null;
  return { code, message: typeof message === 'string' ? message : '', data: b.data };
}
