// Credentials shown once (a new merchant's, or rotated keys or webhook secret): the server keeps only their hashes,
// so the operator copies them here or issues new ones.
import { html, Notice } from '../lib.js';

/** Each credential the answer holds, with a warning that it is not shown again. */
export function CredentialsOnce({ creds, onDone }) {
  return html`<${Notice} kind="warn">
    <p><strong>Copy these now: they are not shown again.</strong></p>
    <dl class="kv">
      ${
        creds.merchant_id
          ? html`<dt>Merchant ID</dt>
              <dd class="secret" data-testid="new-merchant-id">${creds.merchant_id}</dd>`
          : ''
      }
      ${
        creds.wallet_id
          ? html`<dt>Wallet ID</dt>
              <dd class="secret">${creds.wallet_id}</dd>`
          : ''
      }
      ${
        creds.api_key
          ? html`<dt>API key</dt>
              <dd class="secret" data-testid="api-key">${creds.api_key}</dd>`
          : ''
      }
      ${
        creds.secret_key
          ? html`<dt>Secret key</dt>
              <dd class="secret" data-testid="secret-key">${creds.secret_key}</dd>`
          : ''
      }
      ${
        creds.webhook_secret
          ? html`<dt>Webhook secret</dt>
              <dd class="secret">${creds.webhook_secret}</dd>`
          : ''
      }
    </dl>
    <div class="actions"><button type="button" onClick=${onDone}>I have stored them</button></div>
  </${Notice}>`;
}
