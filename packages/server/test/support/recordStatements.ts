import type { Queryable } from '../../src/store/Database.ts';

/**
 * The statements `run` sends, with their parameters, without running them (each answers no rows): what a plan test
 * EXPLAINs. A run that fails on the empty answers still tells the statements it sent before.
 */
export async function statementsOf(
  run: (q: Queryable) => Promise<unknown>,
): Promise<{ sql: string; params: unknown[] }[]> {
  const seen: { sql: string; params: unknown[] }[] = [];
  const recorder = {
    query: async (sql: string, params: unknown[] = []) => {
      seen.push({ sql, params });
      return { rows: [], rowCount: 0 };
    },
    exec: async () => undefined,
  } as unknown as Queryable;
  await run(recorder).catch(() => undefined);
  return seen;
}
