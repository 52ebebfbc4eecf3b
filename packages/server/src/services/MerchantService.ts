import type { Clock } from '../clock.ts';
import { generateCredentials, generateWebhookSecret } from '../domain/credentials.ts';
import { newId } from '../domain/ids.ts';
import type { Merchant, Wallet } from '../domain/Merchant.ts';
import { WEBHOOK_SECRET_OVERLAP_MS } from '../domain/webhookSigningSecrets.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { BalanceOverflow, DuplicateEntry, LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import {
  MerchantRepository,
  type MerchantPageQuery,
  type MerchantPatch,
} from '../store/repositories/MerchantRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';

export type { MerchantPatch };

export interface CreatedMerchant {
  merchant: Merchant;
  wallet: Wallet;
  /**
   * The ids of other merchants with the same name (any case), oldest first: allowed (two businesses may share a
   * name), but usually a walk-through run twice, which the operator is told about.
   */
  namesakes: string[];
}

export interface CreditResult {
  walletId: string;
  balance: bigint;
  /** True when this reference had already been credited: nothing moved this time. */
  duplicate: boolean;
}

/**
 * A credit that cannot be made: the balance would pass the largest amount a wallet holds (`overflow`), or the
 * reference was already used for a credit of another amount (`reference_conflict`). Nothing moved.
 */
export class CreditRefused extends Error {
  constructor(readonly reason: 'overflow' | 'reference_conflict') {
    super(`credit refused: ${reason}`);
    this.name = 'CreditRefused';
  }
}

export interface RotatedWebhookSecret {
  merchantId: string;
  webhookSecret: string;
  /** Until when the replaced secret still signs deliveries (beside the new one). */
  previousSecretExpiresAt: Date;
}

/** Operator-side management of merchants, their credentials and wallets. */
export class MerchantService {
  constructor(
    private readonly db: Database,
    /** The composition root's clock (identifiers are time-ordered). */
    private readonly clock: Clock,
    /**
     * Told of every change made here (creation, rotation, status, limits, settings), so that the token service's
     * V1 index and merchant cache hold it at once on this instance.
     */
    private readonly onChanged: (merchant: Merchant) => void = () => undefined,
    /** Seals and opens secrets (the server passes the one built on its master key; default: plain). */
    private readonly repo = new MerchantRepository(),
  ) {}

  async create(name: string): Promise<CreatedMerchant> {
    const { apiKey, secretKey } = generateCredentials();
    const created = await this.db.transaction(async (tx) => {
      const merchant = await this.repo.insert(tx, {
        id: newId('merchant', this.clock()),
        name,
        apiKey,
        secretKey,
        webhookSecret: generateWebhookSecret(),
      });
      const wallet = await WalletRepository.insert(tx, newId('wallet', this.clock()), merchant.id);
      const namesakes = await MerchantRepository.namesakes(tx, name, merchant.id);
      return { merchant, wallet, namesakes };
    });
    this.onChanged(created.merchant);
    return created;
  }

  get(id: string): Promise<Merchant | null> {
    return this.repo.findById(this.db, id);
  }

  wallets(merchantId: string): Promise<Wallet[]> {
    return WalletRepository.listByMerchant(this.db, merchantId);
  }

  async update(id: string, patch: MerchantPatch): Promise<Merchant | null> {
    const merchant = await this.repo.update(this.db, id, patch);
    if (merchant) this.onChanged(merchant);
    return merchant;
  }

  async rotateCredentials(id: string): Promise<Merchant | null> {
    const { apiKey, secretKey } = generateCredentials();
    const merchant = await this.repo.rotateCredentials(this.db, id, apiKey, secretKey);
    if (merchant) this.onChanged(merchant);
    return merchant;
  }

  /**
   * Issues a new webhook secret. For 24 hours every delivery is signed with both the new secret and the one
   * current just before this call (so receivers can switch at their pace); after that only the new one.
   */
  async rotateWebhookSecret(id: string): Promise<RotatedWebhookSecret | null> {
    const merchant = await this.repo.rotateWebhookSecret(
      this.db,
      id,
      generateWebhookSecret(),
      WEBHOOK_SECRET_OVERLAP_MS,
    );
    if (!merchant) return null;
    this.onChanged(merchant);
    return {
      merchantId: merchant.id,
      webhookSecret: merchant.webhookSecret,
      previousSecretExpiresAt: merchant.previousWebhookSecretExpiresAt as Date,
    };
  }

  async createWallet(merchantId: string): Promise<Wallet | null> {
    if (!(await this.repo.findById(this.db, merchantId))) return null;
    return WalletRepository.insert(this.db, newId('wallet', this.clock()), merchantId);
  }

  onHold(walletId: string): Promise<bigint> {
    return WalletRepository.onHold(this.db, walletId);
  }

  wallet(id: string): Promise<Wallet | null> {
    return WalletRepository.findById(this.db, id);
  }

  /**
   * Credits a wallet through the ledger. A `reference` makes the credit idempotent: the same reference on the
   * same wallet credits once, and a repeat of the same amount answers the current balance with
   * `duplicate: true`; another amount is CreditRefused('reference_conflict'). Throws CreditRefused('overflow')
   * when the balance would not fit its column.
   */
  async credit(walletId: string, amount: bigint, reference?: string): Promise<CreditResult | null> {
    try {
      return await this.db.transaction(async (tx) => {
        if (!(await WalletRepository.findById(tx, walletId))) return null;
        const balance = await LedgerRepository.append(tx, { walletId, kind: 'credit', amount, reference });
        return { walletId, balance, duplicate: false };
      });
    } catch (err) {
      if (err instanceof BalanceOverflow) throw new CreditRefused('overflow');
      if (!(err instanceof DuplicateEntry)) throw err;
      // Only the same credit again is a duplicate; the same reference for another amount is a mistake.
      const earlier = await LedgerRepository.creditAmountByReference(this.db, walletId, reference as string);
      if (earlier !== null && earlier !== amount) throw new CreditRefused('reference_conflict');
      const wallet = await WalletRepository.findById(this.db, walletId);
      return { walletId, balance: (wallet as Wallet).balance, duplicate: true };
    }
  }

  /**
   * A credit inside the caller's transaction (an approved credit request); throws DuplicateEntry on a reused
   * reference and BalanceOverflow past the largest balance.
   */
  async creditWithin(tx: Queryable, walletId: string, amount: bigint, reference: string): Promise<CreditResult> {
    const balance = await LedgerRepository.append(tx, { walletId, kind: 'credit', amount, reference });
    return { walletId, balance, duplicate: false };
  }

  /** A page of merchants (newest first), each with its wallets, as the operator's list shows them. */
  async page(query: MerchantPageQuery): Promise<{ merchant: Merchant; wallets: Wallet[] }[]> {
    const merchants = await this.repo.page(this.db, query);
    const wallets = await WalletRepository.listByMerchants(
      this.db,
      merchants.map((m) => m.id),
    );
    return merchants.map((merchant) => ({ merchant, wallets: wallets.filter((w) => w.merchantId === merchant.id) }));
  }
}
