// The audit log: every operator action (and refusal), newest first.
import { api, Badge, ErrorNotice, html, IdText, MoreButton, qs, Table, usePaged, when } from '../lib.js';
import { AuditDetail } from './auditDetail.js';

export function Audit() {
  const list = usePaged((cursor) => api('GET', `/admin/v1/audit${qs({ cursor })}`), []);
  return html`<h1>Audit log</h1>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Every operator action, newest first"
      rows=${list.rows}
      columns=${[
        { label: 'Time', render: (e) => when(e.at) },
        {
          label: 'Who',
          render: (e) =>
            html`${e.actor_name && e.actor_name !== e.actor ? `${e.actor_name} ` : ''}<span class="muted"
                >${e.actor}</span
              >`,
        },
        { label: 'Role', render: (e) => e.actor_role },
        { label: 'Action', render: (e) => e.action },
        { label: 'Target', id: true, render: (e) => html`<${IdText} text=${e.target} />` },
        {
          label: 'Outcome',
          // A counted row stands for that many refusals from one address within the minute.
          render: (e) => html`<${Badge} value=${e.outcome} /> ${e.http_status}${e.count > 1 ? ` × ${e.count}` : ''}`,
        },
        { label: 'From', render: (e) => e.client_address },
        { label: 'Detail', render: (e) => html`<${AuditDetail} text=${e.detail} />` },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}
