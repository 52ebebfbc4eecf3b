// The merchant's console: its sections (the nav) and which page each hash route opens. Every page reads only the
// merchant's own /console/api/merchant/… routes.
import { BATCH_ID } from '../shared/batchId.js';
import { BatchPage } from './BatchPage.js';
import { Batches } from './Batches.js';
import { CollectionPage } from './CollectionPage.js';
import { Collections } from './Collections.js';
import { InvoicePage } from './InvoicePage.js';
import { Invoices } from './Invoices.js';
import { Overview } from './Overview.js';
import { PayoutPage } from './PayoutPage.js';
import { Payouts } from './Payouts.js';
import { SettlementPage } from './SettlementPage.js';
import { Settlements } from './Settlements.js';
import { Statement } from './Statement.js';
import { Webhooks } from './Webhooks.js';

/** The sections of the nav. */
export const merchantNav = [
  ['#/', 'Balance'],
  ['#/payouts', 'Payouts'],
  ['#/batches', 'Batches'],
  ['#/collections', 'Collections'],
  ['#/settlements', 'Settlements'],
  ['#/webhooks', 'Webhooks'],
  ['#/invoices', 'Invoices'],
];

/** Each hash path and its page, first match wins; the pattern's groups are the page's `params`. */
export const merchantRoutes = [
  [/^\/$/, Overview],
  [/^\/statement\/(WL[0-9A-Z]{26})$/, Statement],
  [/^\/payouts$/, Payouts],
  [/^\/payouts\/(PT[0-9A-Z]{26})$/, PayoutPage],
  [/^\/batches$/, Batches],
  [new RegExp(`^/batches/(${BATCH_ID})$`), BatchPage],
  [/^\/collections$/, Collections],
  [/^\/collections\/(CT[0-9A-Z]{26})$/, CollectionPage],
  [/^\/settlements$/, Settlements],
  [/^\/settlements\/(ST[0-9A-Z]{26})$/, SettlementPage],
  [/^\/webhooks$/, Webhooks],
  [/^\/invoices$/, Invoices],
  [/^\/invoices\/(IV[0-9A-Z]{26})$/, InvoicePage],
];
