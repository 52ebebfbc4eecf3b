// Credentials shown once (a new merchant's, or rotated keys or webhook secret): the server keeps only their hashes,
// so the operator copies them here or issues new ones.
import { html, Notice } from '../lib.js';

/** What an answer may hold, in the order shown: field, label, and the test id of those the tests read. */
const FIELDS = [
  ['merchant_id', 'Merchant ID', 'new-merchant-id'],
  ['wallet_id', 'Wallet ID'],
  ['api_key', 'API key', 'api-key'],
  ['secret_key', 'Secret key', 'secret-key'],
  ['webhook_secret', 'Webhook secret'],
];

/** Each credential the answer holds, with a warning that it is not shown again. */
export function CredentialsOnce({ creds, onDone }) {
  return html`<${Notice} kind="warn">
    <p><strong>Copy these now: they are not shown again.</strong></p>
    <dl class="kv">
      ${FIELDS.filter(([field]) => creds[field]).map(
        ([field, label, testId]) =>
          html`<dt>${label}</dt>
            <dd class="secret" data-testid=${testId}>${creds[field]}</dd>`,
      )}
    </dl>
    <div class="actions"><button type="button" onClick=${onDone}>I have stored them</button></div>
  </${Notice}>`;
}
