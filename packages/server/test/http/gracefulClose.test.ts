import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/testServer.ts';

/*
 * A client that sent its headers and part of its body, then nothing: its request never ends, so before the grace
 * deadline the server's close waited for it for ever (it hung an upstream test's afterAll on a loaded machine).
 */
describe('closing while a request is stuck mid-body', () => {
  it('closes its connection after PAYRAIL_SHUTDOWN_GRACE_MS and finishes', async () => {
    const server = await startTestServer('pglite', { env: { PAYRAIL_SHUTDOWN_GRACE_MS: '300' } });
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    // The server may answer early (401 before the body is read); the request stays unfinished either way.
    const ended = new Promise<void>((resolve) => socket.once('end', resolve).once('close', resolve));
    socket.write(
      'POST /api/payout/v1/initiate HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a"',
    );
    // The server has the headers: the request is in flight.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const closed = await Promise.race([
      server.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 10_000, 'still open after 10 s')),
    ]);
    expect(closed).toBe('closed');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    socket.resume();
    await ended;
  }, 60_000);
});
