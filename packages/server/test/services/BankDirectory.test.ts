import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BankDirectory } from '../../src/services/BankDirectory.ts';

const LIVE_MODE_DOC = new URL('../../../../docs/operator/live-mode.md', import.meta.url);

describe('BankDirectory', () => {
  it('accepts in live mode the IFSCs the live-mode page names, and refuses the sandbox’s there', () => {
    const doc = readFileSync(LIVE_MODE_DOC, 'utf8');
    const named = /`(HDFC0000001)` or `(SBIN0000001)` pass,\s+the sandbox's `(SBOX0000001)` is refused/.exec(doc);
    expect(named, 'docs/operator/live-mode.md names a live IFSC and the sandbox one').not.toBeNull();
    const [, hdfc, sbi, sandbox] = named as RegExpExecArray;
    const live = new BankDirectory(true);
    expect(live.isKnownBranch(hdfc as string)).toBe(true);
    expect(live.isKnownBranch(sbi as string)).toBe(true);
    expect(live.isKnownBranch(sandbox as string)).toBe(false);
    expect(live.bankName(hdfc as string)).toBe('HDFC Bank');
    // The sandbox accepts any well-formed IFSC and names its own bank.
    const sandboxMode = new BankDirectory(false);
    expect(sandboxMode.isKnownBranch(sandbox as string)).toBe(true);
    expect(sandboxMode.bankName(sandbox as string)).toBe('Payrail Sandbox Bank');
  });
});
