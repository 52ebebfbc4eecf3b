// An audit entry's detail as a person reads it: the request's JSON body, when the detail opens with one, as
// "name: value" pairs, then the server's words; every id in it short with its copy button.
import { html, IdText } from '../lib.js';

/** Splits "{…json…} words" into the parsed object and the words after it; null when it does not open with JSON. */
function leadingJson(text) {
  if (!text.startsWith('{')) return null;
  for (let end = text.indexOf('}'); end !== -1; end = text.indexOf('}', end + 1)) {
    try {
      const value = JSON.parse(text.slice(0, end + 1));
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        return { value, rest: text.slice(end + 1).trim() };
      }
    } catch {
      // Not the end of the object yet: a later brace may close it.
    }
  }
  return null;
}

const shown = (v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));

export function AuditDetail({ text }) {
  if (!text) return '';
  const lead = leadingJson(String(text));
  if (!lead) return html`<span class="audit-detail"><${IdText} text=${text} /></span>`;
  return html`<span class="audit-detail">
    ${Object.entries(lead.value).map(
      ([k, v]) =>
        html`<span class="audit-field"><span class="muted">${k}:</span> <${IdText} text=${shown(v)} /></span> `,
    )}
    ${lead.rest ? html`<span class="audit-rest"><${IdText} text=${lead.rest} /></span>` : ''}
  </span>`;
}
