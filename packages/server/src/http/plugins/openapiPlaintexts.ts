import type { WIRE_SCHEMAS } from '@payrail/protocol';

type WireName = keyof typeof WIRE_SCHEMAS;

/**
 * Which plaintext (a WIRE_SCHEMAS component) each merchant operation encrypts in its request's `payload` and in its
 * success answer's `data`. The route schemas say only "an encrypted string"; the document links each string to the
 * schema of what it decrypts to, so that a reader or a client generator finds it from the operation, and no
 * component is left that nothing refers to (Redocly's no-unused-components, issue 32).
 */
const PLAINTEXTS: Record<string, { payload?: WireName; data?: WireName; body?: WireName }> = {
  // The V2 token request is plain JSON: its body is TokenRequestV2 itself.
  'post /v1/auth/client-token': { body: 'TokenRequestV2', data: 'TokenData' },
  'post /v1/auth/clients/token': { payload: 'TokenRequestV1Plaintext', data: 'TokenData' },
  'post /payout/v1/initiate': { payload: 'PayoutInitiateRequest', data: 'PayoutTransaction' },
  'get /payout/v1/status': { data: 'PayoutTransaction' },
  'get /payout/v1/balance': { data: 'Balance' },
  'post /payout/v1/bulk': { payload: 'BulkPayoutRequest', data: 'BulkPayoutResult' },
  'get /payout/v1/bulk/status': { data: 'BulkPayoutStatus' },
  'post /payout/v1/beneficiary/verify': { payload: 'BeneficiaryVerifyRequest', data: 'BeneficiaryVerification' },
  'post /collection/v1/initiate': { payload: 'CollectionInitiateRequest', data: 'CollectionTransaction' },
  'get /collection/v1/status': { data: 'CollectionTransaction' },
  'post /collection/v1/status': { payload: 'CollectionStatusRequest', data: 'CollectionTransaction' },
  'post /sandbox/v1/collections/{txnId}/simulate': { data: 'CollectionTransaction' },
  'post /settlement/v1/initiate': { payload: 'SettlementInitiateRequest', data: 'Settlement' },
  'get /settlement/v1/status': { data: 'Settlement' },
  'get /settlement/v1/history': { data: 'SettlementHistory' },
};

interface Schema {
  properties?: Record<string, Record<string, unknown>>;
  allOf?: unknown[];
  [key: string]: unknown;
}
type Content = Record<string, { schema?: Schema } | undefined> | undefined;
interface Operation {
  requestBody?: { content?: Content };
  responses?: Record<string, { content?: Content } | undefined>;
}

const ref = (name: WireName) => ({ $ref: `#/components/schemas/${name}` });

/**
 * An encrypted string's schema says what it decrypts to: OpenAPI 3.1's JSON Schema keywords for a string that
 * carries another document (`contentMediaType`, `contentSchema`), annotations that no validator applies.
 */
function linkString(property: Record<string, unknown> | undefined, name: WireName) {
  if (!property) return;
  property.contentMediaType = 'application/json';
  property.contentSchema = ref(name);
}

/** Links every merchant operation's encrypted strings to their plaintexts, and describes the webhook merchants get. */
export function linkPlaintexts(doc: { paths?: object; webhooks?: unknown }): void {
  const paths = doc.paths as Record<string, Record<string, Operation | undefined>> | undefined;
  for (const [key, link] of Object.entries(PLAINTEXTS)) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = paths?.[path]?.[method];
    if (!operation) continue;
    const body = operation.requestBody?.content?.['application/json']?.schema;
    if (body && link.payload) linkString(body.properties?.payload, link.payload);
    // The body's own schema is what the server accepts (longer credentials answer 4001); the component says what a
    // valid one is.
    if (body && link.body) body.allOf = [ref(link.body)];
    const answer = operation.responses?.['200']?.content?.['application/json']?.schema;
    if (link.data) linkString(answer?.properties?.data, link.data);
  }
  doc.webhooks = {
    transactionEvent: {
      post: {
        operationId: 'webhookTransactionEvent',
        summary: 'An event of a payout, batch, collection, deposit or settlement, POSTed to its callback URL',
        description:
          'Sent by Payrail to the merchant: verify the Standard Webhooks signature (webhook-id, webhook-timestamp, ' +
          'webhook-signature) with the webhook secret, then decrypt `data` with the scheme of the transaction. ' +
          'Any 2xx acknowledges it; any other answer (or none within the timeout) is retried with backoff.',
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
        responses: {
          '200': { description: 'Received (any 2xx acknowledges the event)' },
          '400': { description: 'Refused, for instance a signature that does not verify: retried later' },
        },
      },
    },
  };
}
