import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import { formatPaise } from '@payrail/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RECON_RESULTS, RUN_ID_PATTERN } from '../../domain/reconciliation.ts';
import {
  StatementUnbalanced,
  StatementUnreadable,
  type CloseOutcome,
  type ReconciliationService,
  type ReconItem,
  type RunSummary,
} from '../../services/ReconciliationService.ts';
import { AdminError } from '../AdminError.ts';
import { csvText } from '../csv.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { adminError, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** A statement file may be large (a busy account's day as camt.053 runs to megabytes). */
export const STATEMENT_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

/** The media types a statement is sent as: camt.053 as XML, MT940 as text. */
export const STATEMENT_MEDIA_TYPES = ['application/xml', 'text/xml', 'text/plain'];

const runCursor = textCursor(
  (key) => RUN_ID_PATTERN.test(key),
  (r: RunSummary) => r.id,
);

const paise = (v: bigint | null) => (v === null ? null : formatPaise(v));

export const runView = (s: RunSummary) => ({
  run_id: s.id,
  statement: {
    statement_id: s.statement.statementRef,
    account: s.statement.account,
    format: s.statement.format,
    version: s.statement.version,
    sha256: s.statement.sha256,
    currency: s.statement.currency,
    period_from: s.statement.periodFrom,
    period_to: s.statement.periodTo,
    opening: {
      type: s.statement.openingType,
      balance: formatPaise(s.statement.openingBalance),
      date: s.statement.openingDate,
    },
    closing: {
      type: s.statement.closingType,
      balance: formatPaise(s.statement.closingBalance),
      date: s.statement.closingDate,
    },
    credits: formatPaise(s.statement.credits),
    debits: formatPaise(s.statement.debits),
    forward_value: formatPaise(s.statement.forwardValue),
    entries: s.statement.entryCount,
    ignored_entries: s.statement.ignoredEntries,
    imported_by: s.statement.importedBy,
    imported_at: s.statement.importedAt.toISOString(),
  },
  transactions: s.transactions,
  results: Object.fromEntries(
    RECON_RESULTS.map((r) => [
      r,
      { count: s.totals[r].count, amount: formatPaise(s.totals[r].amount), open: s.openByResult[r] ?? 0 },
    ]),
  ),
  forward_value_items: s.forwardValueItems,
  open_exceptions: s.openExceptions,
  created_by: s.createdBy,
  created_at: s.createdAt.toISOString(),
});

export const itemView = (i: ReconItem) => ({
  item_id: String(i.id),
  result: i.result,
  state: i.result === 'matched' ? 'matched' : i.closedAt ? 'closed' : 'open',
  entry_index: i.entryIndex,
  tx_index: i.txIndex,
  direction: i.direction,
  amount: paise(i.amount),
  currency: i.currency,
  booking_date: i.bookingDate,
  value_date: i.valueDate,
  forward_value: i.forwardValue,
  end_to_end_id: i.endToEndId,
  utr: i.utr,
  bank_reference: i.bankReference,
  return_reason: i.returnReason,
  remittance: i.remittance,
  matched_kind: i.matchedKind,
  payout_id: i.payoutId,
  collection_id: i.collectionId,
  deposit_id: i.depositId ?? null,
  wallet_id: i.walletId,
  wallet_credit_id: i.ledgerEntryId === null ? null : String(i.ledgerEntryId),
  payrail_amount: paise(i.payrailAmount),
  note: i.note,
  closed_by: i.closedBy,
  closed_reason: i.closedReason,
  closed_at: i.closedAt?.toISOString() ?? null,
});

type ItemJson = ReturnType<typeof itemView>;

const CSV_COLUMNS: (keyof ItemJson)[] = [
  'item_id',
  'result',
  'state',
  'entry_index',
  'tx_index',
  'direction',
  'amount',
  'currency',
  'booking_date',
  'value_date',
  'forward_value',
  'end_to_end_id',
  'utr',
  'bank_reference',
  'return_reason',
  'remittance',
  'matched_kind',
  'payout_id',
  'collection_id',
  'deposit_id',
  'wallet_id',
  'wallet_credit_id',
  'payrail_amount',
  'note',
  'closed_by',
  'closed_reason',
  'closed_at',
];

/** Every item of a run, one line each, in the order of the JSON answer (open exceptions first). */
export function itemsCsv(items: ReconItem[]): string {
  const rows = items.map((item) => {
    const view = itemView(item);
    return CSV_COLUMNS.map((c) => view[c]);
  });
  return csvText([CSV_COLUMNS, ...rows]);
}

const closeAnswer = (outcome: CloseOutcome) => {
  if (outcome.ok) return itemView(outcome.item);
  if (outcome.reason === 'not_found') throw AdminError.notFound('reconciliation item');
  if (outcome.reason === 'not_an_exception') {
    throw new AdminError('not_an_exception', 'A matched item is not an exception and is not closed');
  }
  throw new AdminError('already_closed', 'The exception is already closed');
};

const actorName = (request: FastifyRequest) => request.actor?.name ?? 'operator:admin-token';

/**
 * Reconciliation of bank statements (docs/operator/reconciliation.md): import a camt.053 or MT940 statement (finance),
 * read the runs with their items and export them as CSV (viewer), close an exception with a reason (finance).
 */
export function adminReconciliationRoutes(app: FastifyInstance, deps: { reconciliation: ReconciliationService }) {
  // Statements are XML or text: read as bytes in a context of their own, so that no other route takes them.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      STATEMENT_MEDIA_TYPES,
      { parseAs: 'buffer', bodyLimit: STATEMENT_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.addContentTypeParser('*', (request, _payload, done) => {
      const type = String(request.headers['content-type'] ?? '');
      done(
        new AdminError(
          'unsupported_media_type',
          `Send a camt.053 statement as application/xml or an MT940 statement as text/plain, not ${type.slice(0, 60)}`,
        ),
        undefined,
      );
    });

    scope.post(
      '/admin/v1/reconciliation/statements',
      {
        ...adminRouteOptions,
        bodyLimit: STATEMENT_BODY_LIMIT_BYTES,
        config: { ...adminRouteOptions.config, role: 'finance', audit: 'reconciliation.import' },
        schema: {
          tags: ['admin'],
          summary:
            'Import a bank statement (camt.053.001.02–08 as application/xml, or MT940 as text/plain, at most ' +
            '20 MiB) and reconcile it',
          description:
            'The statement’s arithmetic is checked first (422 naming the difference; nothing is recorded). Each ' +
            'statement of the file gets a reconciliation run. The same statement again (same account, statement ' +
            'id and SHA-256) changes nothing and answers 200 with the first import’s run (`already_imported`).',
          ...R['POST /admin/v1/reconciliation/statements'],
          response: {
            ...R['POST /admin/v1/reconciliation/statements'].response,
            ...adminErrorResponses,
            403: adminError,
            413: adminError,
            415: adminError,
            422: adminError,
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!Buffer.isBuffer(body) || body.length === 0) {
          throw AdminError.invalid('Send the statement file as the request body');
        }
        let runs;
        try {
          runs = await deps.reconciliation.importStatement(body, 'auto', actorName(request));
        } catch (err) {
          if (err instanceof StatementUnreadable) {
            request.auditNote = `refused: ${err.message}`.slice(0, 500);
            throw new AdminError('invalid_statement', err.message);
          }
          if (err instanceof StatementUnbalanced) {
            request.auditNote = `refused: ${err.message}`.slice(0, 500);
            throw new AdminError('statement_unbalanced', err.message);
          }
          throw err;
        }
        const fresh = runs.some((r) => !r.alreadyImported);
        request.auditNote = runs
          .map(
            (r) =>
              `${r.alreadyImported ? 'already imported' : 'imported'} ${r.summary.statement.statementRef} of ` +
              `${r.summary.statement.account} as run ${r.summary.id}`,
          )
          .join('; ')
          .slice(0, 900);
        return reply
          .code(fresh ? 201 : 200)
          .send({ runs: runs.map((r) => ({ ...runView(r.summary), already_imported: r.alreadyImported })) });
      },
    );
  });

  app.get<RouteRequest<'GET /admin/v1/reconciliation/runs'>>(
    '/admin/v1/reconciliation/runs',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Reconciliation runs, newest first, with counts and amounts per result and open exceptions',
        ...R['GET /admin/v1/reconciliation/runs'],
        response: { ...R['GET /admin/v1/reconciliation/runs'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const page = await readPage(request.query, runCursor, (limit, before) =>
        deps.reconciliation.page({ limit, before }),
      );
      return { ...page, data: page.data.map(runView) };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/reconciliation/runs/:run_id'>>(
    '/admin/v1/reconciliation/runs/:run_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary:
          'One run: the statement, counts and amounts per result, and every item (open exceptions first); ' +
          '?format=csv for the items as CSV',
        ...R['GET /admin/v1/reconciliation/runs/:run_id'],
        response: { ...R['GET /admin/v1/reconciliation/runs/:run_id'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const { run_id } = request.params;
      const { format } = request.query;
      const found = RUN_ID_PATTERN.test(run_id) ? await deps.reconciliation.run(run_id) : null;
      if (!found) throw AdminError.notFound('reconciliation run');
      if (format === 'csv') {
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="reconciliation-${run_id}.csv"`)
          .send(itemsCsv(found.items));
      }
      return reply.send({ ...runView(found.summary), items: found.items.map(itemView) });
    },
  );

  app.post<RouteRequest<'POST /admin/v1/reconciliation/runs/:run_id/items/:item_id/close'>>(
    '/admin/v1/reconciliation/runs/:run_id/items/:item_id/close',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'reconciliation.close' },
      schema: {
        tags: ['admin'],
        summary:
          'Close an exception (any result but matched) with a reason, which resolves its entry of the exceptions queue; both are in the audit log',
        ...R['POST /admin/v1/reconciliation/runs/:run_id/items/:item_id/close'],
        response: {
          ...R['POST /admin/v1/reconciliation/runs/:run_id/items/:item_id/close'].response,
          ...adminErrorResponses,
          403: adminError,
        },
      },
    },
    async (request) => {
      const { run_id, item_id } = request.params;
      const reason = request.body.reason.trim();
      if (!reason) throw AdminError.invalid('reason must say why the exception is closed');
      if (!RUN_ID_PATTERN.test(run_id)) throw AdminError.notFound('reconciliation item');
      const outcome = await deps.reconciliation.close(run_id, BigInt(item_id), actorName(request), reason);
      request.auditNote = outcome.ok
        ? `closed ${outcome.item.result} item ${item_id}${outcome.item.payoutId ? ` (${outcome.item.payoutId})` : ''}: ${reason}`.slice(
            0,
            900,
          )
        : `refused (${outcome.reason}): ${reason}`.slice(0, 900);
      return closeAnswer(outcome);
    },
  );
}
