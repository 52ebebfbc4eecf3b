// A payout's or collection's timeline for the operator's detail pages, with a fallback for a server without the route.
import { api, qs } from '../lib.js';

const enc = encodeURIComponent;

/** GET /admin/v1/{kind}/{id}/timeline, or this transaction's webhook deliveries where that route is not there. */
export async function loadTimeline(kind, id) {
  try {
    return await api('GET', `/admin/v1/${kind}/${enc(id)}/timeline`);
  } catch (err) {
    if (err.status !== 404 || err.code !== 'route_not_found') throw err;
    // Without the timeline route: the webhook deliveries of this transaction with their attempts.
    const deliveries = await api('GET', `/admin/v1/webhooks/deliveries${qs({ subject_id: id, limit: 200 })}`);
    return { deliveries: deliveries.data };
  }
}
