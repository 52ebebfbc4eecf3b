// The operators (admins only): create one with an initial password and role, enable or disable the others.
import { ActionButton, ActionForm, api, Badge, ErrorNotice, Field, html, Table, useLoad } from '../lib.js';
import { OPERATOR_ROLES } from '../vocabulary.js';

const enc = encodeURIComponent;

export function Operators({ session }) {
  const list = useLoad(() => api('GET', '/admin/v1/operators'), []);
  return html`<h1>Operators</h1>
    <section class="card" aria-labelledby="new-op">
      <h2 id="new-op" style="margin-top:0">New operator</h2>
      <${ActionForm}
        label="New operator"
        submit="Create operator"
        action=${async (form, el) => {
          await api('POST', '/admin/v1/operators', {
            email: String(form.get('email')),
            name: String(form.get('name') || '') || undefined,
            role: String(form.get('role')),
            password: String(form.get('password')),
          });
          el.reset();
          list.reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="op-email" label="E-mail address"><input id="op-email" name="email" type="email" required autocomplete="off" spellcheck=${false} /></${Field}>
          <${Field} id="op-name" label="Name"><input id="op-name" name="name" /></${Field}>
          <${Field} id="op-role" label="Role"><select id="op-role" name="role">${OPERATOR_ROLES.map((r) => html`<option>${r}</option>`)}</select></${Field}>
          <${Field} id="op-pw" label="Initial password (10+ characters)"><input id="op-pw" name="password" type="password" minlength="10" required autocomplete="new-password" /></${Field}>
        </div>
      </${ActionForm}>
    </section>
    <${ErrorNotice} error=${list.error} />
    ${
      list.data &&
      html`<${Table}
        caption="Operators"
        rows=${list.data.data}
        columns=${[
          { label: 'Name', render: (o) => o.name },
          { label: 'E-mail', render: (o) => o.email },
          { label: 'Role', render: (o) => o.role },
          { label: 'State', render: (o) => html`<${Badge} value=${o.disabled ? 'suspended' : 'active'} />` },
          {
            label: 'Action',
            render: (o) =>
              o.operator_id === session.operator.operator_id
                ? html`<span class="muted">you</span>`
                : html`<${ActionButton} className="secondary" label=${`${o.disabled ? 'Enable' : 'Disable'} ${o.email}`}
                  action=${async () => {
                    await api('PATCH', `/admin/v1/operators/${enc(o.operator_id)}`, { disabled: !o.disabled });
                    list.reload();
                  }}>${o.disabled ? 'Enable' : 'Disable'}</${ActionButton}>`,
          },
        ]}
      />`
    }`;
}
