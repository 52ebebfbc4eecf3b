// A merchant named where a route answers only its id (a wallet, a webhook delivery): the name is read once per
// merchant and page load, and the link shows the short id until it arrives (or if it cannot be read).
import { api, html, shortId, useEffect, useState } from '../lib.js';

const names = new Map();

function nameOf(id) {
  if (!names.has(id)) {
    names.set(
      id,
      api('GET', `/admin/v1/merchants/${encodeURIComponent(id)}`).then(
        (m) => m.name,
        () => null,
      ),
    );
  }
  return names.get(id);
}

/** The merchant's name linking to its page, its id on hover. */
export function MerchantName({ id }) {
  const [name, setName] = useState(null);
  useEffect(() => {
    let live = true;
    if (id) nameOf(id).then((n) => live && setName(n));
    return () => {
      live = false;
    };
  }, [id]);
  if (!id) return '—';
  return html`<a href=${`#/merchants/${id}`} title=${id} data-testid="merchant-name">${name || shortId(id)}</a>`;
}
