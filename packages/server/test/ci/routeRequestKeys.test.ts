import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROUTES = fileURLToPath(new URL('../../src/http/routes/', import.meta.url));

/**
 * A handler's request type is `RouteRequest<'METHOD /path'>`, a type argument the compiler cannot tie to the path
 * the route registers. The registered schema is checked against ROUTE_SCHEMAS by responseSchemas.test.ts; this
 * checks that each type argument names the route it is written on, so the handler reads the schema Fastify
 * validates with and not another route's.
 */
describe('RouteRequest type arguments', () => {
  const registrations = readdirSync(ROUTES)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const text = readFileSync(join(ROUTES, name), 'utf8');
      return [...text.matchAll(/\.(get|post|put|patch|delete)<RouteRequest<'([^']+)'>>\(\s*'([^']+)'/g)].map(
        ([, method, key, path]) => ({ file: name, key, registered: `${method!.toUpperCase()} ${path}` }),
      );
    });

  it('are written on route registrations', () => {
    expect(registrations.length).toBeGreaterThan(50);
  });

  it('name the method and path of the route they are written on', () => {
    expect(registrations.filter((r) => r.key !== r.registered)).toEqual([]);
  });
});
