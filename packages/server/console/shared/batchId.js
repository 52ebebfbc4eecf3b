// What a batch id may be (the merchant's own name for it), for the operator's and the merchant's batch routes alike.
export const BATCH_ID = '[A-Za-z0-9._-]{1,50}';
