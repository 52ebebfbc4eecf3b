import type { Database } from '../store/Database.ts';
import {
  BankFileRepository as Repo,
  type BankFileSummary,
  type InboundBankFile,
} from '../store/repositories/BankFileRepository.ts';

export type { BankFileSummary, InboundBankFile };

/** The bank files for the operator (GET /admin/v1/bankfiles…): every file cut, and every file the bank sent. */
export class BankFileService {
  constructor(private readonly db: Database) {}

  list(limit = 100): Promise<BankFileSummary[]> {
    return Repo.list(this.db, limit);
  }

  /** The file exactly as it was cut (and delivered); null when there is none with this MsgId. */
  xml(msgId: string): Promise<string | null> {
    return Repo.xmlOf(this.db, msgId);
  }

  inbound(limit = 100): Promise<InboundBankFile[]> {
    return Repo.listInbound(this.db, limit);
  }
}
