// One timeline for a payout or collection: the request, every status change (with reason and actor) and every
// webhook attempt (with HTTP status and duration), oldest first. It reads the timeline route's answer, and
// falls back to the transaction and its deliveries where that route is not there.
import { INVENTED_UTR } from './shared/utrText.js';

const pick = (o, ...keys) => keys.map((k) => o && o[k]).find((v) => v !== undefined && v !== null);

/**
 * What is still to come for deliveries not yet delivered: when the next attempt is due, and which earlier delivery
 * a later event waits behind (a transaction's events are sent in order, so a failing one holds back the rest).
 */
function upcoming(deliveries) {
  const out = [];
  for (const d of deliveries) {
    if (d.state === 'failed') {
      out.push({
        at: null,
        upcoming: 'gave up',
        kind: 'webhook',
        outcome: 'failed',
        title: `Webhook ${d.type} gave up after ${d.attempt_count} attempts`,
        detail: 'replay it from the Webhooks page',
      });
    }
    if (d.state !== 'pending') continue;
    const behind = d.waiting_behind && deliveries.find((e) => e.id === d.waiting_behind);
    out.push({
      // One waiting behind another is sent once that one is delivered: its own due time says nothing.
      at: behind ? null : d.next_attempt_at,
      upcoming: behind ? 'waiting' : 'next attempt',
      kind: 'webhook',
      outcome: 'waiting',
      title: behind
        ? `Webhook ${d.type} waits behind ${behind.type}, which is not delivered yet`
        : `Webhook ${d.type}: next attempt (attempt ${d.attempt_count + 1})`,
      detail: behind
        ? 'events of one transaction are delivered in order'
        : d.last_status
          ? `last answer HTTP ${d.last_status}${d.last_error && !d.last_error.includes(String(d.last_status)) ? ` (${d.last_error})` : ''}`
          : d.last_error || '',
    });
  }
  return out;
}

/**
 * Who made a change, as a merchant reads it: the merchant itself, the bank, or Payrail (its worker or an
 * operator), rather than the operator's names for them (`rail:sandbox`, `worker`, `operator:…`).
 */
function merchantActor(actor) {
  if (actor === 'merchant') return 'you';
  if (actor.startsWith('rail:') || actor === 'psp') return 'the bank';
  if (actor.startsWith('operator:')) return 'Payrail operations';
  return 'Payrail';
}

/** `audience`: 'merchant' for the merchant's console (its words), else the operator's. */
export function timelineEvents(data, tx, audience = 'operator') {
  const who = (actor) => (audience === 'merchant' ? merchantActor(String(actor)) : actor);
  const events = [];
  const list = Array.isArray(data) ? data : data.events || data.timeline || null;
  if (list) {
    for (const e of list) {
      const kind = pick(e, 'kind', 'type', 'event') || 'event';
      const isWebhook = /webhook|attempt|delivery/.test(String(kind));
      const status = pick(e, 'status', 'to', 'to_status');
      const httpStatus = pick(e, 'http_status');
      const from = pick(e, 'from');
      let title;
      let outcome;
      if (isWebhook) {
        // A 2xx answer delivers it; anything else (another status, an error, no answer) is a failed attempt.
        outcome = httpStatus >= 200 && httpStatus < 300 ? 'delivered' : 'failed';
        const answer = httpStatus ? `HTTP ${httpStatus}` : pick(e, 'error') || 'no answer';
        // The error of a non-2xx answer often just repeats its status; said once.
        const error = pick(e, 'error');
        const why = httpStatus && error && !String(error).includes(String(httpStatus)) ? ` (${error})` : '';
        title = `Webhook ${pick(e, 'event_type', 'webhook_type') || ''} ${outcome}: ${answer}${why}`;
      } else if (kind === 'request') title = 'Requested';
      else if (kind === 'error') title = audience === 'merchant' ? 'Bank answer not applied' : 'Connector error';
      else title = from && status ? `${from} → ${status}` : String(status || kind);
      const reason = isWebhook ? null : pick(e, 'reason', 'message', 'status_message');
      const utr = pick(e, 'utr');
      // A UTR Payrail made up (resolved SUCCESS without the bank's) says so wherever it is shown.
      const invented = utr && tx && tx.utr_invented && utr === tx.utr_number ? ` (${INVENTED_UTR})` : '';
      const parts = [reason, utr && `UTR ${utr}${invented}`, pick(e, 'actor') && `by ${who(pick(e, 'actor'))}`];
      if (isWebhook && pick(e, 'duration_ms') !== undefined) parts.push(`${pick(e, 'duration_ms')} ms`);
      events.push({
        at: pick(e, 'at', 'time', 'created_at', 'attempted_at'),
        kind: isWebhook ? 'webhook' : 'status',
        outcome,
        title,
        detail: parts.filter(Boolean).join(' · '),
      });
    }
    return [...events, ...upcoming(data.deliveries || [])];
  }
  const stamps = (tx && tx.timestamps) || tx || {};
  const created = pick(stamps, 'created_at', 'createdAt');
  if (created)
    events.push({ at: created, kind: 'status', title: 'Requested', detail: pick(tx, 'sender_id', 'senderId') });
  if (tx && tx.status) {
    const at = pick(stamps, 'updated_at', 'updatedAt', 'created_at', 'createdAt');
    events.push({ at, kind: 'status', title: `Now ${tx.status}`, detail: pick(tx, 'status_message', 'statusMessage') });
  }
  for (const d of data.deliveries || []) {
    for (const a of d.attempts || []) {
      events.push({
        at: a.attempted_at,
        kind: 'webhook',
        outcome: a.http_status >= 200 && a.http_status < 300 ? 'delivered' : 'failed',
        title: `Webhook ${d.type}: ${a.http_status ? `HTTP ${a.http_status}` : a.error || 'no answer'}`,
        detail: `${a.duration_ms} ms`,
      });
    }
  }
  return events.sort((a, b) => String(a.at).localeCompare(String(b.at)));
}
