/** Schema pieces of the merchant routes (validation and the OpenAPI document come from the same objects). */
export const encryptedBody = {
  type: 'object',
  properties: {
    payload: { type: 'string', description: 'The request plaintext (JSON) encrypted with the session scheme' },
  },
} as const;

export function payoutEnvelope(description: string) {
  return {
    description,
    type: 'object',
    required: ['resp_code', 'resp_message'],
    properties: {
      resp_code: { type: 'integer' },
      resp_message: { type: 'string' },
      data: { type: 'string', description: 'Encrypted JSON (session scheme)' },
    },
  } as const;
}

export function collectionEnvelope(description: string) {
  return {
    description,
    type: 'object',
    required: ['respCode', 'respMessage'],
    properties: {
      respCode: { type: 'integer' },
      respMessage: { type: 'string' },
      data: { type: 'string', description: 'Encrypted JSON (session scheme)' },
    },
  } as const;
}

export const bearerSecurity = [{ bearerAuth: [] }];
