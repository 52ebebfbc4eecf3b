import { formatPaise, ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { BankFileService } from '../../services/BankFileService.ts';
import { AdminError } from '../AdminError.ts';
import { pageLimit } from '../pageCursor.ts';
import { adminAuthErrorResponses, adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** A MsgId as Payrail writes them (and nothing that could leave the header). */
const MSG_ID = /^[A-Za-z0-9-]{1,35}$/;

/**
 * GET /admin/v1/bankfiles, /admin/v1/bankfiles/{MsgId} and /admin/v1/bankfiles/inbound (docs/operator/bank-files.md).
 * The lists' `?limit=` is 100 when absent and brought into 1–500 (the other lists': 50, 1–200).
 */
export function adminBankFileRoutes(app: FastifyInstance, deps: { bankFiles: BankFileService }) {
  app.get<RouteRequest<'GET /admin/v1/bankfiles'>>(
    '/admin/v1/bankfiles',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The pain.001 files cut for the bank, newest first, with their payouts’ statuses now',
        ...R['GET /admin/v1/bankfiles'],
        response: { ...R['GET /admin/v1/bankfiles'].response, ...adminAuthErrorResponses },
      },
    },
    async (request) => {
      const files = await deps.bankFiles.list(pageLimit(request.query.limit, 100, 500));
      return {
        data: files.map((f) => ({
          msg_id: f.msgId,
          file_name: `PAYRAIL-${f.msgId}.xml`,
          created_at: f.createdAt.toISOString(),
          delivered_at: f.deliveredAt?.toISOString() ?? null,
          payout_count: f.payoutCount,
          ctrl_sum: formatPaise(f.ctrlSum),
          payout_states: f.states,
        })),
      };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/bankfiles/inbound'>>(
    '/admin/v1/bankfiles/inbound',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'The files the bank put in the inbox, newest first: applied, or failed with the reason',
        ...R['GET /admin/v1/bankfiles/inbound'],
        response: { ...R['GET /admin/v1/bankfiles/inbound'].response, ...adminAuthErrorResponses },
      },
    },
    async (request) => {
      const files = await deps.bankFiles.inbound(pageLimit(request.query.limit, 100, 500));
      return {
        data: files.map((f) => ({
          name: f.name,
          sha256: f.sha256,
          message_type: f.messageType,
          state: f.state,
          reason: f.reason,
          entries: f.entries,
          refused: f.refused,
          received_at: f.receivedAt.toISOString(),
        })),
      };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/bankfiles/:msg_id'>>(
    '/admin/v1/bankfiles/:msg_id',
    {
      ...adminRouteOptions,
      // The file as delivered holds every beneficiary's full account number: the roles that see those (finance,
      // admin; domain/accountMasking.ts) download it, a viewer gets 403.
      config: { ...adminRouteOptions.config, role: 'finance' },
      schema: {
        tags: ['admin'],
        summary: 'One cut file, as delivered (application/xml)',
        ...R['GET /admin/v1/bankfiles/:msg_id'],
        response: { ...R['GET /admin/v1/bankfiles/:msg_id'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const { msg_id } = request.params;
      const xml = MSG_ID.test(msg_id) ? await deps.bankFiles.xml(msg_id) : null;
      if (xml === null) throw AdminError.notFound('bank file');
      return reply
        .header('content-type', 'application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="PAYRAIL-${msg_id}.xml"`)
        .send(xml);
    },
  );
}
