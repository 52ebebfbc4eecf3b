import type { Command } from 'commander';
import { merchantClient } from '../../context.ts';
import { UsageError } from '../../exitCodes.ts';
import { keyValues } from '../../output.ts';
import { showCommand } from '../../showCommand.ts';

/** `payrail balance`: one of the merchant's wallets (SDK). */
export function balanceCommand(program: Command): void {
  showCommand(program, {
    name: 'balance',
    description: 'Show the balance of one of your wallets',
    argument: ['[walletId]', 'wallet (default PAYRAIL_WALLET_ID)'],
    fetch: (walletId, _opts, cmd) => {
      const id = walletId ?? process.env.PAYRAIL_WALLET_ID;
      if (!id) throw new UsageError('give <walletId> or set PAYRAIL_WALLET_ID');
      return merchantClient(cmd).wallets.balance(id);
    },
    view: (b) =>
      keyValues([
        ['Wallet ID', b.walletId],
        ['Balance', `${b.balance} ${b.currency}`],
        ['On hold', `${b.onHold} ${b.currency}`],
        ['Updated', b.updatedAt],
      ]),
  });
}
