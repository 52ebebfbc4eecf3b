import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * A second merchant of the same name is created, with a warning naming the others (issue 32: running the README twice
 * made two "Acme Traders" silently).
 */
describe.each(ENGINES)('merchant creation warns of namesakes on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(() => t.close());

  const create = async (name: string) => {
    const res = await admin(t.url, 'POST', '/admin/v1/merchants', { name });
    expect(res.status).toBe(201);
    return res.body as { merchant_id: string; name: string; warnings: unknown[] };
  };

  it('answers an empty warnings for a new name, and duplicate_name (any case, outer spaces aside) for a taken one', async () => {
    const first = await create('Namesake Traders');
    expect(first.warnings).toEqual([]);
    const second = await create('  namesake TRADERS ');
    expect(second.merchant_id).not.toBe(first.merchant_id);
    expect(second.name).toBe('namesake TRADERS');
    expect(second.warnings).toEqual([
      {
        code: 'duplicate_name',
        merchant_ids: [first.merchant_id],
        message: expect.stringContaining(`another merchant is already named "namesake TRADERS" (${first.merchant_id})`),
      },
    ]);
    const third = await create('Namesake Traders');
    expect(third.warnings).toEqual([
      expect.objectContaining({
        code: 'duplicate_name',
        merchant_ids: [first.merchant_id, second.merchant_id],
        message: expect.stringMatching(/^2 other merchants are already named/),
      }),
    ]);
    // A name that only contains another is not a namesake.
    expect((await create('Namesake Traders Two')).warnings).toEqual([]);
  });
});
