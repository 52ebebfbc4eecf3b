import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../src/services/KeyedQueue.ts';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedQueue', () => {
  it('runs at most `limit` tasks per key, the others in arrival order; other keys are not held up', async () => {
    const q = new KeyedQueue(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number) => async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      order.push(n);
      running--;
      return n;
    };
    let otherDone = false;
    const same = Array.from({ length: 10 }, (_, n) => q.run('hot', task(n)));
    const other = q.run('cold', async () => (otherDone = true));
    await other;
    expect(otherDone).toBe(true);
    expect(await Promise.all(same)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(2);
    expect(order.slice(2)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(q.size).toBe(0);
  });

  it('a failing task frees its slot and the error reaches its caller', async () => {
    const q = new KeyedQueue(1);
    const failed = q.run('k', async () => {
      await tick();
      throw new Error('refused');
    });
    const next = q.run('k', async () => 'ran');
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toBe('ran');
    expect(q.size).toBe(0);
  });
});
