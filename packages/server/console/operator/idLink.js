// An id that opens its own console page (#/merchants/MR…, #/wallets/WL…): every operator page links ids alike.
import { html, ShortId } from '../lib.js';

/** The short form of `id` linking to its page under `#/<kind>/`, or a dash when there is none. */
export const idLink = (kind, id) => (id ? html`<${ShortId} id=${id} href=${`#/${kind}/${id}`} />` : '—');
