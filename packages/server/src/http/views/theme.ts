/**
 * The one stylesheet of Payrail's server-rendered pages (the hosted payment page now, the operator console
 * later): system fonts, no external resources, readable from 320 px wide, visible keyboard focus. Inlined into
 * each page under the page's CSP nonce.
 */
export const THEME_CSS = `
:root {
  --bg: #f4f6f9; --surface: #ffffff; --text: #17202e; --muted: #5b6678; --border: #dde2ea;
  --primary: #1f5fd6; --primary-text: #ffffff; --primary-hover: #184cae;
  --ok: #137a4b; --ok-bg: #e5f5ec; --bad: #b42318; --bad-bg: #fdecea; --warn: #8a5a00; --warn-bg: #fff4d6;
  --info: #1f5fd6; --info-bg: #e8effc; --radius: 14px; --focus: #f5a400;
  color-scheme: light;
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; min-height: 100vh; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
}
main { width: 100%; max-width: 440px; margin: 0 auto; padding: 16px; }
h1, h2 { margin: 0; line-height: 1.25; }
h1 { font-size: 1.15rem; font-weight: 600; }
h2 { font-size: 1rem; font-weight: 600; }
p { margin: 0; }
.card {
  background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius);
  padding: 20px; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.06);
}
.stack > * + * { margin-top: 16px; }
.muted { color: var(--muted); font-size: 0.9rem; }
.center { text-align: center; }
.amount { font-size: 2.25rem; font-weight: 700; letter-spacing: -0.01em; font-variant-numeric: tabular-nums; }
.badge {
  display: inline-flex; align-items: center; gap: 6px; padding: 4px 12px; border-radius: 999px;
  font-size: 0.9rem; font-weight: 600; background: var(--info-bg); color: var(--info);
}
.badge-ok { background: var(--ok-bg); color: var(--ok); }
.badge-bad { background: var(--bad-bg); color: var(--bad); }
.badge-warn { background: var(--warn-bg); color: var(--warn); }
.btn {
  display: flex; align-items: center; justify-content: center; width: 100%; min-height: 48px; padding: 12px 16px;
  border-radius: 10px; border: 1px solid var(--border); background: var(--surface); color: var(--text);
  font: inherit; font-weight: 600; text-decoration: none; cursor: pointer;
}
.btn:hover { background: var(--bg); }
.btn-primary { background: var(--primary); border-color: var(--primary); color: var(--primary-text); }
.btn-primary:hover { background: var(--primary-hover); }
.btn-ok { border-color: var(--ok); color: var(--ok); }
.btn-bad { border-color: var(--bad); color: var(--bad); }
.btn[disabled] { opacity: 0.6; cursor: wait; }
.row { display: flex; gap: 12px; }
.row > * { flex: 1 1 0; min-width: 0; }
a:focus-visible, button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.qr { display: block; width: 100%; max-width: 232px; margin: 0 auto; }
.qr svg { display: block; width: 100%; height: auto; }
.notice {
  border: 1px dashed var(--warn); background: var(--warn-bg); color: var(--text); border-radius: 10px; padding: 12px;
}
.visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
}
footer { margin-top: 16px; text-align: center; color: var(--muted); font-size: 0.8rem; }
@media (prefers-reduced-motion: no-preference) { .btn { transition: background 0.15s ease; } }
`;
