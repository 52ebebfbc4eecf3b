/** Schema pieces of the merchant routes: the shapes are protocol's (schemas/merchant.ts), the security is ours. */
export { collectionEnvelope, encryptedBody, payoutEnvelope } from '@payrail/protocol';

export const bearerSecurity = [{ bearerAuth: [] }];
