import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestIds } from '../../src/http/requestId.ts';
import { createLogger } from '../../src/logger.ts';
import { http } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

const asked = (id?: string | string[]) =>
  ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as unknown as IncomingMessage;

describe('request ids (http/requestId.ts)', () => {
  it("are the instance's prefix and a count, unless the client sent a sound X-Request-Id", () => {
    const next = requestIds('0a1b2c3d4e');
    expect(next(asked())).toBe('req-0a1b2c3d4e-1');
    expect(next(asked())).toBe('req-0a1b2c3d4e-2');
    expect(next(asked('order-1001/attempt:2'))).toBe('order-1001/attempt:2');
    expect(next(asked('x'.repeat(128)))).toBe('x'.repeat(128));
    // Too long, a space, a control character (a forged log line), not ASCII, empty, or the header twice: ours.
    for (const bad of ['x'.repeat(129), 'two words', 'a\nb', 'a\u0000', 'ré', '', ['a', 'b']]) {
      expect(next(asked(bad)), JSON.stringify(bad)).toMatch(/^req-0a1b2c3d4e-[0-9a-z]+$/);
    }
  });

  it('differ between instances: each draws its own prefix', () => {
    const a = requestIds()(asked());
    const b = requestIds()(asked());
    expect(a).toMatch(/^req-[0-9a-f]{10}-1$/);
    expect(a).not.toBe(b);
  });
});

describe('X-Request-Id over HTTP', () => {
  const lines: string[] = [];
  let one: TestServer;
  let two: TestServer;
  beforeAll(async () => {
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    one = await startTestServer('pglite', { logger });
    two = await startTestServer('pglite', { db: one.db });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it("every answer names its request: the client's id echoed, else one no other instance gives", async () => {
    const mine = await http(one.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-7f3a' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-7f3a');
    // Its log lines carry it, so a client's id finds the server's lines.
    expect(lines.some((l) => (JSON.parse(l) as { reqId?: string }).reqId === 'trace-7f3a')).toBe(true);

    const ids: (string | null)[] = [];
    for (const t of [one, two, one, two]) {
      const res = await http(t.url, 'GET', '/no/such/route', { headers: { 'x-request-id': 'bad id\twith tab' } });
      expect(res.status).toBe(404);
      ids.push(res.headers.get('x-request-id'));
    }
    for (const id of ids) expect(id).toMatch(/^req-[0-9a-f]{10}-[0-9a-z]+$/);
    expect(new Set(ids).size).toBe(4);
    const prefix = (id: string | null | undefined) => id?.split('-')[1];
    expect(prefix(ids[0])).toBe(prefix(ids[2]));
    expect(prefix(ids[0])).not.toBe(prefix(ids[1]));
  });
});
