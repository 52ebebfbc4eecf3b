/**
 * What an upstream refusal of a submission means for the payout:
 * - permanent: the request itself is wrong for the upstream (beneficiary, amount, IFSC, account, mode, verification,
 *   a bank the upstream will not pay): the payout fails, then is refunded;
 * - temporary: the upstream cannot pay it now (its account short, its limits, the bank down, throttled, an internal
 *   error): the payout waits and is tried again until the retry period ends.
 * A code the interface does not define is treated as temporary: failing a merchant's payout on an answer nobody
 * understood would be worse than letting the operator see it (it is the payout's rail error meanwhile).
 */
const PERMANENT = new Set([4003, 4004, 4005, 4006, 4007, 4008, 4012, 4013, 4015]);

export function upstreamRefusal(code: number, httpStatus: number): 'permanent' | 'temporary' {
  if (PERMANENT.has(code) && httpStatus < 500) return 'permanent';
  return 'temporary';
}
