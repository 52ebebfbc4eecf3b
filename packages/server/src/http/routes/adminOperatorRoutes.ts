import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { isEmail, lineageNote, type Operator } from '../../domain/Operator.ts';
import { passwordProblem } from '../../domain/passwordHash.ts';
import { signInEmail } from '../../domain/signInIdentity.ts';
import type { OperatorService } from '../../services/OperatorService.ts';
import { AdminError } from '../AdminError.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

export const operatorView = (o: Operator) => ({
  operator_id: o.id,
  email: o.email,
  name: o.name,
  role: o.role,
  disabled: o.disabled,
  created_by: o.createdBy,
  created_at: o.createdAt.toISOString(),
  updated_at: o.updatedAt.toISOString(),
});

/** Operator accounts (docs/operator/console.md): admins (and the admin token) create, change and disable them. */
export function adminOperatorRoutes(app: FastifyInstance, deps: { operators: OperatorService }) {
  app.post<RouteRequest<'POST /admin/v1/operators'>>(
    '/admin/v1/operators',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'admin', audit: 'operator.create' },
      schema: {
        tags: ['console'],
        summary: 'Create an operator account (e-mail, name, role, password of 10–200 characters)',
        ...R['POST /admin/v1/operators'],
        response: { ...R['POST /admin/v1/operators'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // Checked as it will be stored (OperatorService normalises it the same way).
      const email = signInEmail(body.email);
      if (!isEmail(email)) throw AdminError.invalid('email must be an e-mail address');
      const problem = passwordProblem(body.password);
      if (problem) throw AdminError.invalid(problem);
      const created = await deps.operators.create({
        email,
        name: body.name?.trim() || email,
        role: body.role,
        password: body.password,
        grantor: request.actor!,
      });
      if (!created) throw new AdminError('operator_exists', 'An operator with this e-mail address exists');
      // The approval lineage, where whoever reviews operator changes reads them.
      request.auditNote = lineageNote(created.grants, request.actor!);
      return reply.code(201).send(operatorView(created.operator));
    },
  );

  app.get(
    '/admin/v1/operators',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'admin' },
      schema: {
        tags: ['console'],
        summary: 'Every operator account (admin role)',
        ...R['GET /admin/v1/operators'],
        response: { ...R['GET /admin/v1/operators'].response, ...adminErrorResponses },
      },
    },
    async () => ({ data: (await deps.operators.list()).map(operatorView) }),
  );

  app.patch<RouteRequest<'PATCH /admin/v1/operators/:operator_id'>>(
    '/admin/v1/operators/:operator_id',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'admin', audit: 'operator.update' },
      schema: {
        tags: ['console'],
        summary: 'Change role, name or password, or disable; any change but the name ends their sessions',
        ...R['PATCH /admin/v1/operators/:operator_id'],
        response: { ...R['PATCH /admin/v1/operators/:operator_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { operator_id } = request.params;
      const body = request.body;
      if (body.password !== undefined) {
        const problem = passwordProblem(body.password);
        if (problem) throw AdminError.invalid(problem);
      }
      if (operator_id === request.actor?.operatorId && (body.disabled === true || body.role !== undefined)) {
        // An admin who demotes or disables themselves could leave nobody to undo it.
        throw new AdminError('own_account', 'Ask another admin to change your own role or to disable you');
      }
      const updated = await deps.operators.update(operator_id, body, request.actor!);
      if (!updated) throw AdminError.notFound('operator');
      request.auditNote = lineageNote(updated.grants, request.actor!);
      return operatorView(updated.operator);
    },
  );
}
