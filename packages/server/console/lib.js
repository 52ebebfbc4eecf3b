// Shared pieces of the console: Preact + htm from the server's own node_modules, the API client, formatting.
import { h, render } from './vendor/preact.js';
import { useState, useEffect, useCallback, useRef } from './vendor/hooks.js';
import htm from './vendor/htm.js';

export const html = htm.bind(h);
export { render, useState, useEffect, useCallback, useRef };

let csrfToken = null;
export const setCsrf = (token) => {
  csrfToken = token;
};

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls a documented route with the session cookie; state changes carry the session's CSRF token. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) {
    const error = (data && data.error) || {};
    if (res.status === 401 && !path.endsWith('/session')) window.dispatchEvent(new Event('payrail:signed-out'));
    throw new ApiError(res.status, error.code || 'error', error.message || `${res.status} ${res.statusText}`);
  }
  return data;
}

/** Runs `load` when `deps` change; gives { data, error, loading, reload }. */
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export const qs = (params) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const text = p.toString();
  return text ? `?${text}` : '';
};

const timeFormat = new Intl.DateTimeFormat('en-IN', {
  dateStyle: 'medium',
  timeStyle: 'medium',
  timeZone: 'Asia/Kolkata',
});
export const when = (iso) => (iso ? `${timeFormat.format(new Date(iso))} IST` : '—');

/**
 * Money as an Indian reader writes it: ₹1,00,000.00 (the last three digits, then pairs). It works on the decimal
 * text the API answers, digit by digit, never through a float, so no paisa is lost on any amount.
 */
export function rupees(text) {
  if (text === null || text === undefined || text === '') return '—';
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(String(text).trim());
  if (!m) return `₹${text}`;
  const [, sign, whole, frac = ''] = m;
  const int = whole.replace(/^0+(?=\d)/, '');
  const head = int.slice(0, -3);
  const grouped = head ? `${head.replace(/\B(?=(\d{2})+$)/g, ',')},${int.slice(-3)}` : int;
  return `${sign ? '−' : ''}₹${grouped}.${frac.padEnd(2, '0')}`;
}

/** The sum of decimal amounts (text, two places), added in paise as integers: no float. */
export function sumMoney(texts) {
  let paise = 0n;
  for (const t of texts) {
    const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(t ?? '0'));
    if (!m) continue;
    const v = BigInt(m[2]) * 100n + BigInt((m[3] || '').padEnd(2, '0'));
    paise += m[1] ? -v : v;
  }
  const abs = paise < 0n ? -paise : paise;
  return `${paise < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/**
 * An account number as the server gave it (docs/operator/console.md, "Who sees full account numbers"): in full to
 * finance and admin operators and to a merchant for its own, masked to the last four digits (XXXX0001) for a
 * viewer by the admin API itself. The console masks nothing of its own, so every page follows the one rule.
 */
export const accountText = (acc) => (acc ? String(acc) : '—');

/** The account number on one line, never broken. */
export const AccountNumber = ({ number }) => html`<span class="account-number">${accountText(number)}</span>`;

/** An id shortened for a table cell (PT01JD…4D): enough to tell ids apart at a glance, never wrapping. */
export const shortId = (id) => (id && id.length > 12 ? `${id.slice(0, 6)}…${id.slice(-2)}` : id || '');

// Drawn, not a glyph: the copy symbols of Unicode are missing from many system fonts.
const COPY_ICON = html`<svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
  <rect x="3.5" y="0.5" width="8" height="8" rx="1" fill="none" stroke="currentColor" />
  <path d="M2 3.5H1.5a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h6a1 1 0 0 0 1-1V10" fill="none" stroke="currentColor" />
</svg>`;

async function copyText(text) {
  if (window.navigator.clipboard && window.isSecureContext) return window.navigator.clipboard.writeText(text);
  // Plain http on a LAN address has no clipboard API: the older selection copy still works there.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

/**
 * A long id in short (a link when `href` is given) with a button that copies the full id. The full id stays the
 * link's accessible name, so screen readers and searches find it whole.
 */
export function ShortId({ id, href }) {
  const [copied, setCopied] = useState(false);
  if (!id) return '—';
  const text = html`<span aria-hidden="true">${shortId(id)}</span><span class="visually-hidden">${id}</span>`;
  return html`<span class="short-id" title=${id}>
    ${href ? html`<a href=${href}>${text}</a>` : text}
    <button
      type="button"
      class="copy"
      aria-label=${`Copy ${id}`}
      data-copy=${id}
      onClick=${async () => {
        await copyText(id);
        setCopied(true);
        window.setTimeout(() => setCopied(false), 1500);
      }}
    >
      ${copied ? '✓' : COPY_ICON}
    </button>
    ${copied ? html`<span class="visually-hidden" role="status">Copied</span>` : ''}
  </span>`;
}

/** Any id the service issues: two letters of its kind, then a ULID (PT…, WL…, MR…). */
export const ID_PATTERN = /\b[A-Z]{2}[0-9A-HJKMNP-TV-Z]{26}\b/g;

/**
 * Text that may hold ids (an audit detail, a sender id that is a settlement id): each id in it is shown short with
 * its copy button, the words around it as they are.
 */
export function IdText({ text }) {
  if (text === null || text === undefined || text === '') return '';
  const value = String(text);
  const parts = [];
  let last = 0;
  for (const m of value.matchAll(ID_PATTERN)) {
    if (m.index > last) parts.push(value.slice(last, m.index));
    parts.push(html`<${ShortId} id=${m[0]} />`);
    last = m.index + m[0].length;
  }
  if (last < value.length) parts.push(value.slice(last));
  return html`${parts}`;
}

/** The instant an IST wall-clock time ("2026-11-25T10:30" from a datetime-local field) stands for. */
export const istInstant = (local) => new Date(`${local.length === 16 ? `${local}:00` : local}+05:30`);

/** From and To fields of a list filter: IST days, both inclusive; the server turns them into UTC bounds. */
export function DateRangeFields({ range, prefix }) {
  return html`<${Field} id=${`${prefix}-from`} label="From (IST day)">
      <input id=${`${prefix}-from`} name="from" type="date" value=${range.from || ''} />
    </${Field}>
    <${Field} id=${`${prefix}-to`} label="To (IST day, inclusive)">
      <input id=${`${prefix}-to`} name="to" type="date" value=${range.to || ''} />
    </${Field}>`;
}

/** SANDBOX or LIVE, from the server's answer: on every page, so no one mistakes test money for real money. */
export function ModeMarker({ mode }) {
  if (!mode) return null;
  const live = mode === 'live';
  return html`<span
    class=${`mode-marker ${live ? 'live' : 'sandbox'}`}
    data-testid="mode"
    title=${live ? 'Live: real money moves' : 'Sandbox: no real money moves'}
    >${live ? 'LIVE' : 'SANDBOX'}</span
  >`;
}

/** Where an identifier leads: MR merchant, WL wallet, PT payout, CT collection, ST settlement. */
export function routeForId(id) {
  const value = id.trim();
  const prefix = value.slice(0, 2).toUpperCase();
  const routes = { MR: 'merchants', WL: 'wallets', PT: 'payouts', CT: 'collections', ST: 'settlements' };
  return routes[prefix] && value.length === 28 ? `#/${routes[prefix]}/${value.toUpperCase()}` : null;
}

// Components

export function Notice({ kind = 'ok', children }) {
  return html`<div class=${`notice ${kind}`} role=${kind === 'error' ? 'alert' : 'status'}>${children}</div>`;
}

export function ErrorNotice({ error }) {
  if (!error) return null;
  return html`<${Notice} kind="error">${error.message}${error.code ? html` <span class="muted">(${error.code})</span>` : ''}</${Notice}>`;
}

export const Badge = ({ value }) => html`<span class=${`badge ${value}`}>${value}</span>`;

export function Field({ id, label, children, hint }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children} ${hint ? html`<div class="muted" id=${`${id}-hint`}>${hint}</div>` : ''}
  </div>`;
}

/** A form whose submit runs `action` and shows its error; the submit button is disabled while it runs. */
export function ActionForm({ action, submit, children, className, danger, label }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const onSubmit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action(new FormData(event.currentTarget), event.currentTarget);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class=${className || ''} onSubmit=${onSubmit} aria-label=${label}>
    <${ErrorNotice} error=${error} />
    ${children}
    <button type="submit" class=${danger ? 'danger' : ''} disabled=${busy}>${busy ? 'Working…' : submit}</button>
  </form>`;
}

/** A button that runs an action (with optional confirmation) and reports errors beside itself. */
export function ActionButton({ action, children, className, confirmText, label }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const onClick = async () => {
    if (confirmText && !window.confirm(confirmText)) return;
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<span>
    <button type="button" class=${className || ''} onClick=${onClick} disabled=${busy} aria-label=${label}>
      ${busy ? 'Working…' : children}
    </button>
    ${error ? html` <span role="alert" class="badge failed">${error.message}</span>` : ''}
  </span>`;
}

/** A table in a horizontally scrolling, keyboard-focusable wrapper (phones). */
export function Table({ caption, columns, rows, empty = 'Nothing here yet.', rowClass }) {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${caption}>
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}>${c.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          rows.length === 0
            ? html`<tr>
                <td colspan=${columns.length} class="muted">${empty}</td>
              </tr>`
            : rows.map(
                (row) =>
                  html`<tr class=${rowClass ? rowClass(row) : ''}>
                    ${columns.map((c) => html`<td class=${c.num ? 'num' : c.id ? 'id' : ''}>${c.render(row)}</td>`)}
                  </tr>`,
              )
        }
      </tbody>
    </table>
  </div>`;
}

/** A cursor-paged list: `fetchPage(cursor)` answers { data, has_more, next_cursor }. */
export function usePaged(fetchPage, deps) {
  const [rows, setRows] = useState([]);
  const [next, setNext] = useState(null);
  const [error, setError] = useState(null);
  const [loading, setLoading] = useState(true);
  const load = async (cursor, append) => {
    setLoading(true);
    try {
      const page = await fetchPage(cursor);
      setRows((old) => (append ? [...old, ...page.data] : page.data));
      setNext(page.has_more ? page.next_cursor : null);
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    load(undefined, false);
  }, deps);
  return { rows, error, loading, more: next ? () => load(next, true) : null, reload: () => load(undefined, false) };
}

export function MoreButton({ paged }) {
  if (!paged.more) return null;
  return html`<div class="actions">
    <button type="button" class="secondary" onClick=${paged.more}>Load more</button>
  </div>`;
}

const istHour = (iso) =>
  new Date(iso).toLocaleTimeString('en-IN', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Kolkata' });

const STATUS_COLORS = {
  INITIATED: '#8da2c9',
  PROCESSING: '#1f5fd6',
  PENDING: '#e09b1a',
  SUCCESS: '#137a4b',
  FAILED: '#b42318',
  REFUNDED: '#8a3b98',
};

/** Payouts per status per hour as stacked bars in inline SVG, with a text summary for screen readers. */
export function PayoutChart({ hours }) {
  const statuses = Object.keys(STATUS_COLORS);
  const max = Math.max(1, ...hours.map((h) => statuses.reduce((n, s) => n + (h[s] || 0), 0)));
  const W = 720;
  const H = 240;
  const pad = { l: 52, r: 8, t: 10, b: 42 };
  const bw = (W - pad.l - pad.r) / hours.length;
  const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const total = hours.reduce((n, h) => n + statuses.reduce((m, s) => m + (h[s] || 0), 0), 0);
  const bars = hours.map((hour, i) => {
    let acc = 0;
    return statuses.map((s) => {
      const v = hour[s] || 0;
      if (!v) return null;
      const top = y(acc + v);
      const rect = html`<rect
        x=${pad.l + i * bw + 2}
        y=${top}
        width=${Math.max(1, bw - 4)}
        height=${y(acc) - top}
        fill=${STATUS_COLORS[s]}
      >
        <title>${`${istHour(hour.hour)} IST: ${v} ${s}`}</title>
      </rect>`;
      acc += v;
      return rect;
    });
  });
  const label = `Payouts per hour over the last 24 hours: ${total} in all; ${statuses
    .map((s) => `${hours.reduce((n, h) => n + (h[s] || 0), 0)} ${s}`)
    .join(', ')}.`;
  return html`<div class="chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${label}>
      <line x1=${pad.l} x2=${W - pad.r} y1=${y(0)} y2=${y(0)} stroke="#aab3c5" />
      <text x=${pad.l - 6} y=${y(max) + 4} text-anchor="end" font-size="11" fill="#5b6478">${max}</text>
      <text x=${pad.l - 6} y=${y(0)} text-anchor="end" font-size="11" fill="#5b6478">0</text>
      ${bars}
      ${hours.map((hour, i) =>
        i % 4 === 0
          ? html`<text x=${pad.l + i * bw + bw / 2} y=${H - 24} text-anchor="middle" font-size="11" fill="#5b6478">
              ${istHour(hour.hour)}
            </text>`
          : null,
      )}
      <text
        x=${pad.l + (W - pad.l - pad.r) / 2}
        y=${H - 4}
        text-anchor="middle"
        font-size="12"
        fill="#3a4254"
        data-testid="chart-x-label"
      >
        Hour of the day (IST)
      </text>
      <text
        transform=${`translate(14 ${pad.t + (H - pad.t - pad.b) / 2}) rotate(-90)`}
        text-anchor="middle"
        font-size="12"
        fill="#3a4254"
        data-testid="chart-y-label"
      >
        Payouts (count)
      </text>
    </svg>
    <ul class="legend" aria-hidden="true">
      ${statuses.map((s) => html`<li><span style=${`background:${STATUS_COLORS[s]}`}></span>${s}</li>`)}
    </ul>
  </div>`;
}

/**
 * Opening balance, entries with running balance, closing balance. Each line says what it is in words (the server's
 * description: "Payout", "Payout fee", "GST on payout fee"…). `merchant`: the merchant's own statement, whose
 * lines name its payouts and collections by its sender_id; the operator's name them by id, the sender_id beneath.
 */
export function StatementTable({ statement, merchant }) {
  const rows = [
    { summary: true, kind: 'Opening balance', balance: statement.opening_balance, created_at: statement.from },
    ...statement.entries,
    { summary: true, kind: 'Closing balance', balance: statement.closing_balance, created_at: statement.to },
  ];
  return html`<${Table}
    caption="Statement"
    rowClass=${(r) => (r.summary ? 'summary' : '')}
    rows=${rows}
    columns=${[
      { label: 'Time', render: (r) => (r.created_at ? when(r.created_at) : r.summary ? '' : '—') },
      { label: 'Entry', render: (r) => r.description || r.kind },
      {
        label: merchant ? 'Your reference' : 'Reference',
        render: (r) =>
          merchant
            ? html`<${IdText} text=${r.sender_id || r.reference || ''} />`
            : html`<${IdText} text=${r.payout_id || r.collection_id || r.reference || ''} />${
                  r.sender_id ? html`<span class="sub"><${IdText} text=${r.sender_id} /></span>` : ''
                }`,
      },
      { label: 'Amount', num: true, render: (r) => (r.summary ? '' : rupees(r.amount)) },
      { label: 'Balance', num: true, render: (r) => rupees(r.balance) },
    ]}
  />`;
}

/** One timeline: the request, each status change with reason and actor, each webhook attempt. */
export function Timeline({ events }) {
  if (!events.length) return html`<p class="muted">No events yet.</p>`;
  return html`<ol class="timeline" aria-label="Timeline">
    ${events.map(
      (e) =>
        html`<li
          class=${[e.kind === 'status' ? '' : e.kind, e.outcome || ''].join(' ').trim()}
          data-outcome=${e.outcome}
        >
          <time datetime=${e.at || undefined}
            >${e.upcoming ? [e.upcoming, e.at && when(e.at)].filter(Boolean).join(' ') : when(e.at)}</time
          >
          <strong><${IdText} text=${e.title} /></strong>${e.detail ? html` — <${IdText} text=${e.detail} />` : ''}
        </li>`,
    )}
  </ol>`;
}
