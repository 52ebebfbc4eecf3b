// The merchant of a row, as every operator list and detail card shows it: one markup, so they all look alike.
import { html } from '../lib.js';

/** The merchant of a row, by name (its id on hover), for the operator's lists. */
export const merchantCell = (row) =>
  html`<a href=${`#/merchants/${row.merchant_id}`} title=${row.merchant_id}
    >${row.merchant_name || row.merchant_id}</a
  >`;
