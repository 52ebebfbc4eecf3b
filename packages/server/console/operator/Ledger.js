// The ledger check: every wallet's balance against the sum of its ledger entries, with any mismatch listed.
import { ActionButton, api, html, Notice, rupees, Table, useState } from '../lib.js';
import { idLink } from './idLink.js';

export function Ledger() {
  const [result, setResult] = useState(null);
  return html`<h1>Ledger</h1>
    <p>Checks that every wallet's balance equals the sum of its ledger entries.</p>
    <div class="actions"><${ActionButton} action=${async () => setResult(await api('GET', '/admin/v1/ledger/verify'))}>Verify the ledger</${ActionButton}></div>
    ${
      result &&
      (result.ok
        ? html`<${Notice}>Ledger consistent: ${result.wallets_checked} wallets checked, no mismatch.</${Notice}>`
        : html`<${Notice} kind="error">${result.mismatches.length} mismatches in ${result.wallets_checked} wallets.</${Notice}>
          <${Table} caption="Mismatches" rows=${result.mismatches} columns=${[
            { label: 'Wallet', id: true, render: (m) => idLink('wallets', m.wallet_id) },
            { label: 'Balance', num: true, render: (m) => rupees(m.balance) },
            { label: 'Ledger sum', num: true, render: (m) => rupees(m.ledger_sum) },
          ]} />`)
    }`;
}
