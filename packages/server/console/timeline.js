// One timeline for a payout or collection: the request, every status change (with reason and actor) and every
// webhook attempt (with HTTP status and duration), oldest first. It reads the timeline route's answer, and
// falls back to the transaction and its deliveries where that route is not there.
const pick = (o, ...keys) => keys.map((k) => o && o[k]).find((v) => v !== undefined && v !== null);

export function timelineEvents(data, tx) {
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
      if (isWebhook) {
        const answer = httpStatus ? `HTTP ${httpStatus}` : pick(e, 'error') || 'no answer';
        title = `Webhook ${pick(e, 'event_type', 'webhook_type') || ''}: ${answer}`;
      } else if (kind === 'request') title = 'Requested';
      else if (kind === 'error') title = 'Connector error';
      else title = from && status ? `${from} → ${status}` : String(status || kind);
      const reason = isWebhook ? null : pick(e, 'reason', 'message', 'status_message');
      const parts = [reason, pick(e, 'utr') && `UTR ${pick(e, 'utr')}`, pick(e, 'actor') && `by ${pick(e, 'actor')}`];
      if (isWebhook && pick(e, 'duration_ms') !== undefined) parts.push(`${pick(e, 'duration_ms')} ms`);
      events.push({
        at: pick(e, 'at', 'time', 'created_at', 'attempted_at'),
        kind: isWebhook ? 'webhook' : 'status',
        title,
        detail: parts.filter(Boolean).join(' · '),
      });
    }
    return events;
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
        title: `Webhook ${d.type}: ${a.http_status ? `HTTP ${a.http_status}` : a.error || 'no answer'}`,
        detail: `${a.duration_ms} ms`,
      });
    }
  }
  return events.sort((a, b) => String(a.at).localeCompare(String(b.at)));
}
