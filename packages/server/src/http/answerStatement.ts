import { PassThrough } from 'node:stream';
import type { FromSchema, statementQuery } from '@payrail/protocol';
import type { FastifyReply } from 'fastify';
import { parseStatementBound, type StatementEntry } from '../domain/statement.ts';
import type { MerchantScope } from '../services/MerchantScope.ts';
import {
  STATEMENT_MAX_ENTRIES,
  type StatementEnd,
  type StatementHead,
  type WalletStatementService,
} from '../services/WalletStatementService.ts';
import { AdminError } from './AdminError.ts';
import { statementCsvHead, statementCsvLines, statementCsvTail } from './views/statementCsv.ts';
import { statementJson } from './views/statementJson.ts';
import { statementJsonlHead, statementJsonlLines, statementJsonlTail } from './views/statementJsonl.ts';

/** The streamed forms: how each writes its parts, its media type and its file's extension. */
const STREAMED = {
  csv: {
    type: 'text/csv; charset=utf-8',
    ext: 'csv',
    head: statementCsvHead,
    lines: statementCsvLines,
    tail: statementCsvTail,
  },
  jsonl: {
    type: 'application/x-ndjson; charset=utf-8',
    ext: 'jsonl',
    head: statementJsonlHead,
    lines: statementJsonlLines,
    tail: statementJsonlTail,
  },
} as const;

/**
 * Answers a statement request for the operator and the merchant console alike (JSON, CSV or JSON lines), `q` being
 * the query both routes declare (statementQuery). With `scope`, only that merchant's wallets: another's is 404, as if
 * unknown. CSV and JSON lines stream (no cap); JSON is one document built whole, so it keeps a cap.
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
  if (q.format === 'csv' || q.format === 'jsonl') {
    return streamStatement(reply, statements, walletId, { from, to }, STREAMED[q.format], scope);
  }
  const outcome = await statements.statement(walletId, { from, to }, scope);
  if (!outcome.ok && outcome.reason === 'too_many_entries') {
    throw AdminError.invalid(
      `more than ${STATEMENT_MAX_ENTRIES} entries: ask for a shorter range (from, to), or for format=csv or format=jsonl, which have no limit`,
    );
  }
  if (!outcome.ok) throw AdminError.notFound('wallet');
  return reply.send(statementJson(outcome.statement));
}

/**
 * Streams the statement: the status and headers go once the wallet is found, then each page as it is read. The next
 * page is read only when the connection has taken this one (`write` waits for 'drain'), so memory stays at a couple
 * of pages whatever the range. A failure after the first bytes cannot change the status: the answer is cut off (no
 * closing line, and the chunked body never ends), which the client sees as a failed download.
 */
async function streamStatement(
  reply: FastifyReply,
  statements: WalletStatementService,
  walletId: string,
  range: { from: Date | null; to: Date | null },
  form: (typeof STREAMED)[keyof typeof STREAMED],
  scope: MerchantScope | undefined,
) {
  const body = new PassThrough();
  let head: StatementHead | undefined;
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (body.destroyed) return reject(new Error('statement download closed by the client'));
      if (body.write(text)) return resolve();
      const settle = () => {
        body.off('drain', settle);
        body.off('close', settle);
        if (body.destroyed) reject(new Error('statement download closed by the client'));
        else resolve();
      };
      body.on('drain', settle);
      body.on('close', settle);
    });
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : 'all');
  try {
    const outcome = await statements.stream(
      walletId,
      range,
      {
        start(h) {
          head = h;
          body.write(form.head(h));
          void reply
            .header('content-type', form.type)
            .header(
              'content-disposition',
              `attachment; filename="statement-${walletId}-${day(range.from)}-${day(range.to)}.${form.ext}"`,
            )
            .send(body);
        },
        page: (entries: StatementEntry[]) => write(form.lines(entries)),
        async end(totals: StatementEnd) {
          await write(form.tail(head as StatementHead, totals));
          body.end();
        },
      },
      scope,
    );
    if (outcome === 'not_found') throw AdminError.notFound('wallet');
  } catch (err) {
    if (!head) throw err;
    reply.log.warn({ err, walletId }, 'statement download cut short');
    body.destroy();
  }
  return reply;
}
