import { describe, expect, it } from 'vitest';
import { parseCutoffs } from '../src/bankFileConfig.ts';
import { loadConfig } from '../src/config.ts';
import { msToNextCutoff } from '../src/jobs/BankFileCutoff.ts';
import { BANKFILE_ENV } from './support/bankFiles.ts';

const base = { ...BANKFILE_ENV, PAYRAIL_BANKFILE_DIR: '/tmp/bank' };
const without = (name: string) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== name));

describe('PAYRAIL_BANKFILE_* settings', () => {
  it('are read only when bankfile is the default connector or a route', () => {
    expect(loadConfig({}).connectors.bankfile).toBeNull();
    expect(loadConfig(base).connectors.bankfile).toMatchObject({
      dir: '/tmp/bank',
      sftp: null,
      cutoffs: { every: 200 },
      scanMs: 200,
      debtor: { name: 'Payrail Test Payouts', account: '50100012345678', ifsc: 'HDFC0000123' },
    });
    const routed = { ...base, PAYRAIL_CONNECTOR: 'sandbox', PAYRAIL_CONNECTOR_ROUTES: 'NEFT=bankfile' };
    expect(loadConfig(routed).connectors.bankfile?.dir).toBe('/tmp/bank');
  });

  it('default to a cut-off every 30 minutes and a scan every 30 seconds', () => {
    const settings = loadConfig(without('PAYRAIL_BANKFILE_CUTOFFS')).connectors.bankfile;
    expect(settings?.cutoffs).toEqual({ every: 1_800_000 });
    expect(loadConfig(without('PAYRAIL_BANKFILE_SCAN')).connectors.bankfile?.scanMs).toBe(30_000);
  });

  it.each([
    'PAYRAIL_BANKFILE_DIR',
    'PAYRAIL_BANKFILE_DEBTOR_NAME',
    'PAYRAIL_BANKFILE_DEBTOR_ACCOUNT',
    'PAYRAIL_BANKFILE_DEBTOR_IFSC',
    'PAYRAIL_BANKFILE_INITIATING_PARTY',
  ])('stop the start naming %s when it is missing', (name) => {
    expect(() => loadConfig(without(name))).toThrow(new RegExp(`^${name}: required`));
  });

  it.each([
    ['PAYRAIL_BANKFILE_DEBTOR_IFSC', 'HDFC123'],
    ['PAYRAIL_BANKFILE_CUTOFFS', 'at noon'],
    ['PAYRAIL_BANKFILE_CUTOFFS', '25:00'],
    ['PAYRAIL_BANKFILE_SCAN', 'often'],
    ['PAYRAIL_BANKFILE_SFTP_URL', 'ftp://bank.example/x'],
  ])('refuse %s=%s, naming it', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it('need the key and the host key with SFTP, and no folder', () => {
    const sftp = {
      ...without('PAYRAIL_BANKFILE_DIR'),
      PAYRAIL_BANKFILE_SFTP_URL: 'sftp://payrail@bank.example:2222/in',
    };
    expect(() => loadConfig(sftp)).toThrow(/^PAYRAIL_BANKFILE_SFTP_KEY_FILE: required/);
    expect(() => loadConfig({ ...sftp, PAYRAIL_BANKFILE_SFTP_KEY_FILE: '/nonexistent/key' })).toThrow(
      /^PAYRAIL_BANKFILE_SFTP_KEY_FILE: cannot read/,
    );
    expect(() => loadConfig({ ...sftp, PAYRAIL_BANKFILE_SFTP_KEY_FILE: '/etc/hostname' })).toThrow(
      /^PAYRAIL_BANKFILE_SFTP_HOST_KEY: required/,
    );
    const settings = loadConfig({
      ...sftp,
      PAYRAIL_BANKFILE_SFTP_KEY_FILE: '/etc/hostname',
      PAYRAIL_BANKFILE_SFTP_HOST_KEY: `SHA256:${'A'.repeat(43)}`,
    }).connectors.bankfile;
    expect(settings?.sftp).toMatchObject({ host: 'bank.example', port: 2222, username: 'payrail', path: '/in' });
  });
});

describe('cut-off times', () => {
  it('parse IST times, sorted', () => {
    expect(parseCutoffs('17:30, 09:00')).toEqual({ istMinutes: [540, 1050] });
    expect(parseCutoffs('every 15m')).toEqual({ every: 900_000 });
  });

  it('count to the next IST time, across midnight', () => {
    const cutoffs = parseCutoffs('09:00,17:30');
    // 08:00 IST = 02:30 UTC → 09:00 IST is one hour away.
    expect(msToNextCutoff(cutoffs, Date.parse('2026-11-25T02:30:00Z'))).toBe(3_600_000);
    // 18:00 IST → 09:00 IST tomorrow: 15 hours.
    expect(msToNextCutoff(cutoffs, Date.parse('2026-11-25T12:30:00Z'))).toBe(15 * 3_600_000);
    expect(msToNextCutoff(parseCutoffs('every 200ms'), 0)).toBe(200);
  });
});
