// The Payrail console: sign-in, then the operator's or the merchant's views. Hash routes (#/payouts/PT…), so the
// server serves one page and every view can be bookmarked.
import { api, html, render, routeForId, setCsrf, useEffect, useState, ErrorNotice, Field, ModeMarker } from './lib.js';
import { operatorRoutes, operatorNav } from './operator/routes.js';
import { merchantRoutes, merchantNav } from './merchant/routes.js';

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/');
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

const MODE_TEXT = { sandbox: 'SANDBOX', live: 'LIVE' };

/** The tab's title carries the mode too, so a row of tabs tells sandbox from live. */
function useTitle(mode, page) {
  useEffect(() => {
    document.title = [MODE_TEXT[mode], page, 'Payrail console'].filter(Boolean).join(' · ');
    document.body.classList.toggle('mode-sandbox', mode === 'sandbox');
    document.body.classList.toggle('mode-live', mode === 'live');
  }, [mode, page]);
}

// Credential fields say spellcheck=${false}, not "false": Preact sets spellcheck as a DOM property, where the
// string "false" is truthy and would switch the browser's spelling check on (sending keys to a spelling service).
function SignIn({ onSignedIn, mode }) {
  useTitle(mode, 'Sign in');
  const [kind, setKind] = useState('operator');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const session =
        kind === 'operator'
          ? await api('POST', '/console/api/session', { email: form.get('email'), password: form.get('password') })
          : await api('POST', '/console/api/merchant/session', {
              api_key: form.get('api_key'),
              secret_key: form.get('secret_key'),
            });
      onSignedIn({ kind, ...session });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <${ModeMarker} mode=${mode} />
    <h1>Payrail console</h1>
    <div class="tabs" role="group" aria-label="Who is signing in">
      <button type="button" aria-pressed=${kind === 'operator'} onClick=${() => setKind('operator')}>Operator</button>
      <button type="button" aria-pressed=${kind === 'merchant'} onClick=${() => setKind('merchant')}>Merchant</button>
    </div>
    <form class="card" onSubmit=${submit} aria-label=${kind === 'operator' ? 'Operator sign-in' : 'Merchant sign-in'}>
      <${ErrorNotice} error=${error} />
      ${
        kind === 'operator'
          ? html`<${Field} id="email" label="E-mail address">
              <input id="email" name="email" type="email" autocomplete="username" spellcheck=${false} autocapitalize="off" required autofocus />
            </${Field}>
            <${Field} id="password" label="Password">
              <input id="password" name="password" type="password" autocomplete="current-password" spellcheck=${false} required />
            </${Field}>`
          : html`<${Field} id="api_key" label="API key">
              <input id="api_key" name="api_key" autocomplete="username" autocapitalize="off" required spellcheck=${false} />
            </${Field}>
            <${Field} id="secret_key" label="Secret key">
              <input id="secret_key" name="secret_key" type="password" autocomplete="current-password" spellcheck=${false} required />
            </${Field}>`
      }
      <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
    <p class="muted">
      ${
        kind === 'operator'
          ? 'Operator accounts are created with: payrail operator create <email> --role admin|finance|viewer'
          : 'Merchants sign in with the API key and secret key their operator gave them.'
      }
    </p>
  </main>`;
}

function Shell({ session, onSignOut }) {
  const hash = useHash();
  const isOperator = session.kind === 'operator';
  const routes = isOperator ? operatorRoutes : merchantRoutes;
  const nav = isOperator ? operatorNav(session.operator.role) : merchantNav;
  const path = hash.replace(/^#/, '') || '/';
  let view = null;
  for (const [pattern, component] of routes) {
    const match = pattern.exec(path);
    if (match) {
      view = html`<${component} session=${session} params=${match.slice(1)} />`;
      break;
    }
  }
  useEffect(() => {
    const heading = document.querySelector('main h1');
    if (heading) {
      heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
    }
  }, [path]);
  const section = nav.find(([href]) => (href === '#/' ? path === '/' : hash.startsWith(href)));
  useTitle(session.mode, view ? (section ? section[1] : '') : 'Not found');
  const [searchError, setSearchError] = useState('');
  const search = (event) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget).get('q') || '';
    const target = routeForId(String(value));
    if (target) {
      setSearchError('');
      location.hash = target;
    } else setSearchError('Enter a merchant (MR…), wallet (WL…), payout (PT…) or collection (CT…) id');
  };
  const who = isOperator
    ? `${session.operator.name} · ${session.operator.role}`
    : `${session.merchant.name} · merchant`;
  return html`<div>
    <a
      class="skip"
      href="#content"
      onClick=${(e) => {
        e.preventDefault();
        document.getElementById('content').focus();
      }}
      >Skip to content</a
    >
    <header class="top">
      <a class="brand" href="#/">Payrail</a>
      <${ModeMarker} mode=${session.mode} />
      ${
        isOperator
          ? html`<form class="search" role="search" onSubmit=${search}>
              <label class="visually-hidden" for="q">Search by id</label>
              <input id="q" name="q" placeholder="Search by id (MR…, WL…, PT…, CT…)" spellcheck=${false} />
              <button type="submit" class="secondary">Go</button>
            </form>`
          : ''
      }
      <span class="who" data-testid="who">${who}</span>
      <button type="button" class="link" onClick=${onSignOut}>Sign out</button>
    </header>
    ${searchError ? html`<div role="alert" class="notice error" style="margin:0.5rem 1rem">${searchError}</div>` : ''}
    <nav class="main" aria-label="Sections">
      <ul>
        ${nav.map(
          ([href, label, Extra]) =>
            html`<li>
              <a
                href=${href}
                aria-current=${(href === '#/' ? path === '/' : hash.startsWith(href)) ? 'page' : undefined}
                >${label}${Extra ? html`<${Extra} />` : ''}</a
              >
            </li>`,
        )}
      </ul>
    </nav>
    <main id="content" tabindex="-1">
      ${
        view ||
        html`<h1>Not found</h1>
          <p>No such page. <a href="#/">Overview</a></p>`
      }
    </main>
  </div>`;
}

function App() {
  const [session, setSession] = useState(undefined);
  const [mode, setMode] = useState(null);
  const adopt = (s) => {
    setCsrf(s ? s.csrf_token : null);
    if (s && s.mode) setMode(s.mode);
    setSession(s);
  };
  useEffect(() => {
    (async () => {
      // One probe that answers 200 signed in or not: a signed-out start is no error in the browser's console.
      try {
        const me = await api('GET', '/console/api/whoami');
        setMode(me.mode);
        adopt(me.signed_in ? me : null);
      } catch {
        adopt(null);
      }
    })();
    const gone = () => adopt(null);
    window.addEventListener('payrail:signed-out', gone);
    return () => window.removeEventListener('payrail:signed-out', gone);
  }, []);
  const signOut = async () => {
    try {
      await api('DELETE', session.kind === 'operator' ? '/console/api/session' : '/console/api/merchant/session');
    } finally {
      adopt(null);
      location.hash = '#/';
    }
  };
  if (session === undefined) return html`<p class="boot">Loading…</p>`;
  if (session === null) return html`<${SignIn} onSignedIn=${adopt} mode=${mode} />`;
  return html`<${Shell} session=${{ ...session, mode: session.mode || mode }} onSignOut=${signOut} />`;
}

render(html`<${App} />`, document.getElementById('app'));
