import type { FromSchema, statementQuery } from '@payrail/protocol';
import type { FastifyReply } from 'fastify';
import { parseStatementBound } from '../domain/statement.ts';
import type { MerchantScope } from '../services/MerchantScope.ts';
import { STATEMENT_MAX_ENTRIES, type WalletStatementService } from '../services/WalletStatementService.ts';
import { AdminError } from './AdminError.ts';
import { statementCsv } from './views/statementCsv.ts';
import { statementJson } from './views/statementJson.ts';

/**
 * Answers a statement request for the operator and the merchant console alike (JSON or CSV), `q` being the query
 * both routes declare (statementQuery). With `scope`, only that merchant's wallets: another's is 404, as if unknown.
 */
export async function answerStatement(
  reply: FastifyReply,
  statements: WalletStatementService,
  walletId: string,
  q: FromSchema<typeof statementQuery>,
  scope?: MerchantScope,
) {
  const from = parseStatementBound(q.from, 'from');
  const to = parseStatementBound(q.to, 'to');
  if (from === undefined) throw AdminError.invalid('from must be an ISO date-time or YYYY-MM-DD');
  if (to === undefined) throw AdminError.invalid('to must be an ISO date-time or YYYY-MM-DD');
  if (from && to && from >= to) throw AdminError.invalid('from must be before to');
  const outcome = await statements.statement(walletId, { from, to }, scope);
  if (!outcome.ok && outcome.reason === 'too_many_entries') {
    throw AdminError.invalid(`more than ${STATEMENT_MAX_ENTRIES} entries: ask for a shorter range (from, to)`);
  }
  if (!outcome.ok) throw AdminError.notFound('wallet');
  const s = outcome.statement;
  if (q.format === 'csv') {
    const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : 'all');
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="statement-${walletId}-${day(from)}-${day(to)}.csv"`)
      .send(statementCsv(s, outcome.readAt));
  }
  return reply.send(statementJson(s));
}
