import type { Core } from './core.ts';
import { ValidationError } from './errors.ts';
import { toBalance } from './mapping.ts';
import { readData } from './payouts.ts';
import type { Balance, CallOptions } from './types.ts';

export class Wallets {
  constructor(private readonly core: Core) {}

  /** Spendable balance and the amount held by payouts that are not final yet. */
  async balance(walletId: string, options: CallOptions = {}): Promise<Balance> {
    const operation = 'wallets.balance';
    if (typeof walletId !== 'string' || walletId === '') {
      throw new ValidationError({ code: 4201, message: 'walletId is required', operation });
    }
    const outcome = await this.core.request({
      operation,
      family: 'payout',
      method: 'GET',
      path: '/payout/v1/balance',
      query: { wallet_id: walletId },
      auth: true,
      retry: 'read',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toBalance);
  }
}
