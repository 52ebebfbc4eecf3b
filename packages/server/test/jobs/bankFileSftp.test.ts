import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateOnce } from '../../../cli/src/bankSimulator.ts';
import { bankFileSettings } from '../../src/bankFileConfig.ts';
import { SftpTransport } from '../../src/rails/bankfile/transport.ts';
import { fundedMerchant, initiateOk, payoutRequest, SANDBOX, waitForStatus } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer } from '../support/testServer.ts';
import { sshKeyPair, startInProcessSftp } from '../support/inProcessSftp.ts';
import { SSHD, sshdAvailable, startSshd, type TempSshd } from '../support/tempSshd.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';

const hasSshd = sshdAvailable();

if (!hasSshd && !process.env.CI) {
  console.warn(
    `bank files over SFTP: the OpenSSH tests skipped, no ${SSHD} (apt-get install -y openssh-server); ` +
      'the in-process SFTP server tests ran',
  );
}

describe.runIf(!hasSshd && process.env.CI)('bank files over OpenSSH (CI)', () => {
  it('needs OpenSSH', () => {
    expect.fail(`${SSHD} or ssh-keygen is missing: .ci/run installs them (apt-get install -y openssh-server)`);
  });
});

/**
 * Bank files over SFTP, against a server this file starts; both pin the host key and take the client's key, as
 * a bank's server does.
 */
const overSftp = (start: () => Promise<TempSshd>) => () => {
  let sshd: TempSshd;
  const env = () => ({
    ...BANKFILE_ENV,
    PAYRAIL_BANKFILE_SFTP_URL: `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}`,
    PAYRAIL_BANKFILE_SFTP_KEY_FILE: sshd.clientKeyFile,
    PAYRAIL_BANKFILE_SFTP_HOST_KEY: sshd.hostKeyFingerprint,
  });

  beforeAll(async () => {
    sshd = await start();
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it('creates the folders, writes under a temporary name then renames, lists, reads and moves', async () => {
    const transport = new SftpTransport(bankFileSettings(env()).sftp!);
    try {
      await transport.prepare();
      expect((await readdir(sshd.root)).sort()).toEqual(['failed', 'inbox', 'outbox', 'processed']);
      await transport.write('inbox', 'a.xml', '<a/>');
      expect(await transport.list('inbox')).toEqual(['a.xml']);
      expect((await transport.read('inbox', 'a.xml')).toString()).toBe('<a/>');
      expect(await transport.move('inbox', 'a.xml', 'processed')).toBe('a.xml');
      await transport.write('inbox', 'a.xml', '<b/>');
      // The name is taken in processed/: the second file gets a suffix, the first stays.
      expect(await transport.move('inbox', 'a.xml', 'processed')).toMatch(/^a\.[0-9a-f]{8}\.xml$/);
      expect(await readFile(join(sshd.root, 'processed', 'a.xml'), 'utf8')).toBe('<a/>');
      expect(await transport.list('inbox')).toEqual([]);
    } finally {
      await transport.close();
    }
  });

  it('refuses a server whose host key is not the pinned one', async () => {
    const settings = bankFileSettings({ ...env(), PAYRAIL_BANKFILE_SFTP_HOST_KEY: sshd.otherFingerprint }).sftp!;
    const transport = new SftpTransport(settings);
    await expect(transport.list('inbox')).rejects.toThrow(/host key .* is not PAYRAIL_BANKFILE_SFTP_HOST_KEY/);
    await transport.close();
  });

  it('is refused with a key the server does not know', async () => {
    const keyFile = join(sshd.root, '..', 'unknown_key');
    await writeFile(keyFile, sshKeyPair().private, { mode: 0o600 });
    const transport = new SftpTransport(bankFileSettings({ ...env(), PAYRAIL_BANKFILE_SFTP_KEY_FILE: keyFile }).sftp!);
    await expect(transport.list('inbox')).rejects.toThrow(/authentication/i);
    await transport.close();
  });

  it.each(ENGINES)('runs the whole loop through the SFTP server (%s)', async (engine) => {
    const t = await startTestServer(engine, { env: env() });
    try {
      const { merchant, client } = await fundedMerchant(t.url, 'v2');
      const ok = await initiateOk(
        client,
        payoutRequest('nested', {
          wallet_id: merchant.wallet_id,
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.success,
        }),
      );
      const failed = await initiateOk(
        client,
        payoutRequest('nested', {
          wallet_id: merchant.wallet_id,
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.failure,
        }),
      );
      await waitForStatus(t.url, ok.transaction_id as string, 'PROCESSING', 15_000);
      await waitForStatus(t.url, failed.transaction_id as string, 'PROCESSING', 15_000);
      // The bank's side: the same folder the SFTP server serves.
      await simulateOnce(sshd.root);
      const paid = await waitForStatus(t.url, ok.transaction_id as string, 'SUCCESS', 15_000);
      expect(paid.utr_number).toMatch(/^\d{12}$/);
      await waitForStatus(t.url, failed.transaction_id as string, 'REFUNDED', 15_000);
    } finally {
      await t.close();
    }
  });
};

// Always: an SFTP server in this process (the `ssh2` package's), so that any machine with Node tests the transport.
describe(
  'bank files over SFTP (in-process server)',
  overSftp(() => startInProcessSftp()),
);
// Where openssh-server is installed (CI installs it): the real OpenSSH server too.
describe.runIf(hasSshd)('bank files over SFTP (OpenSSH)', overSftp(startSshd));
