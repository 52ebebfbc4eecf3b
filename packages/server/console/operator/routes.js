// The operator's console: its sections (the nav) and which page each hash route opens. Every page calls documented
// admin routes; the server enforces the roles, the pages only hide what the signed-in role cannot do.
import { BATCH_ID } from '../shared/batchId.js';
import { Approvals } from './Approvals.js';
import { Audit } from './Audit.js';
import { BankFiles } from './BankFiles.js';
import { BatchPage } from './BatchPage.js';
import { Batches } from './Batches.js';
import { CollectionDetail } from './CollectionDetail.js';
import { Collections } from './Collections.js';
import { ExceptionDetail } from './ExceptionDetail.js';
import { Exceptions } from './Exceptions.js';
import { Fees } from './Fees.js';
import { InvoiceDetail } from './InvoiceDetail.js';
import { Invoices } from './Invoices.js';
import { OpenExceptionsCount } from './exceptionParts.js';
import { Ledger } from './Ledger.js';
import { MerchantDetail } from './MerchantDetail.js';
import { Merchants } from './Merchants.js';
import { Operators } from './Operators.js';
import { Overview } from './Overview.js';
import { PayoutDetail } from './PayoutDetail.js';
import { Payouts } from './Payouts.js';
import { Reconciliation } from './Reconciliation.js';
import { ReconciliationRun } from './ReconciliationRun.js';
import { SettlementDetail } from './SettlementDetail.js';
import { Settlements } from './Settlements.js';
import { Wallet } from './Wallet.js';
import { Webhooks } from './Webhooks.js';

/**
 * The sections of the nav, each [href, label, optional component drawn after the label]: Operators for admins only
 * (the server refuses its routes to the others); Exceptions with its open count.
 */
export function operatorNav(role) {
  return [
    ['#/', 'Overview'],
    ['#/merchants', 'Merchants'],
    ['#/payouts', 'Payouts'],
    ['#/batches', 'Batches'],
    ['#/collections', 'Collections'],
    ['#/settlements', 'Settlements'],
    ['#/webhooks', 'Webhooks'],
    ['#/approvals', 'Approvals'],
    ['#/exceptions', 'Exceptions', OpenExceptionsCount],
    ['#/ledger', 'Ledger'],
    ['#/fees', 'Fees'],
    ['#/invoices', 'Invoices'],
    ['#/reconciliation', 'Reconciliation'],
    ['#/bankfiles', 'Bank files'],
    ['#/audit', 'Audit log'],
    ...(role === 'admin' ? [['#/operators', 'Operators']] : []),
  ];
}

/** Each hash path and its page, first match wins; the pattern's groups are the page's `params`. */
export const operatorRoutes = [
  [/^\/$/, Overview],
  [/^\/merchants$/, Merchants],
  [/^\/merchants\/(MR[0-9A-Z]{26})$/, MerchantDetail],
  [/^\/wallets\/(WL[0-9A-Z]{26})$/, Wallet],
  [/^\/payouts$/, Payouts],
  [/^\/payouts\/(PT[0-9A-Z]{26})$/, PayoutDetail],
  [/^\/batches$/, Batches],
  [new RegExp(`^/batches/(MR[0-9A-Z]{26})/(${BATCH_ID})$`), BatchPage],
  [/^\/collections$/, Collections],
  [/^\/collections\/(CT[0-9A-Z]{26})$/, CollectionDetail],
  [/^\/settlements$/, Settlements],
  [/^\/settlements\/(ST[0-9A-Z]{26})$/, SettlementDetail],
  [/^\/webhooks$/, Webhooks],
  [/^\/approvals$/, Approvals],
  [/^\/exceptions$/, Exceptions],
  [/^\/exceptions\/(EX[0-9A-Z]{26})$/, ExceptionDetail],
  [/^\/ledger$/, Ledger],
  [/^\/fees$/, Fees],
  [/^\/invoices$/, Invoices],
  [/^\/invoices\/(IV[0-9A-Z]{26})$/, InvoiceDetail],
  [/^\/reconciliation$/, Reconciliation],
  [/^\/bankfiles$/, BankFiles],
  [/^\/reconciliation\/(RR[0-9A-Z]{26})$/, ReconciliationRun],
  [/^\/audit$/, Audit],
  [/^\/operators$/, Operators],
];
