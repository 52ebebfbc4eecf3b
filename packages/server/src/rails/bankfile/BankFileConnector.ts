import type { BankFileSettings } from '../../bankFileConfig.ts';
import type { BankConnector, ConnectorCapabilities, RailOutcome, SubmitAnswer } from '../BankConnector.ts';
import { FolderTransport, SftpTransport, type BankFileTransport } from './transport.ts';

/**
 * Payouts as ISO 20022 payment files (docs/operator/bank-files.md). Nothing is submitted one by one: the cut-off job
 * (jobs/BankFileCutoff.ts) collects the waiting payouts into a pain.001, and the inbox job (jobs/BankFileInbox.ts)
 * applies the bank's status reports and notifications. The connector holds the settings and the transport both
 * jobs use.
 */
export class BankFileConnector implements BankConnector {
  readonly name = 'bankfile';
  readonly capabilities: ConnectorCapabilities = {
    payouts: true,
    collections: false,
    verification: false,
    polling: false,
    webhooks: true,
  };
  /** Collected at the cut-off, never submitted one by one. */
  readonly submitDelayMs = null;
  readonly transport: BankFileTransport;

  constructor(
    readonly settings: BankFileSettings,
    transport?: BankFileTransport,
  ) {
    this.transport =
      transport ?? (settings.sftp ? new SftpTransport(settings.sftp) : new FolderTransport(settings.dir as string));
  }

  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  /** Never called (submitDelayMs is null); a refusal rather than a silent acceptance if it ever were. */
  async submit(): Promise<SubmitAnswer> {
    return { accepted: false, reason: 'bank-file payouts are sent in the cut-off file, not one by one' };
  }

  /** Outcomes come from the bank's files. */
  async poll(): Promise<RailOutcome | null> {
    return null;
  }

  pollDelayMs(): number | null {
    return null;
  }
}
