// A payout's beneficiary: nested under `beneficiary` in one answer, flat on the payout in another; both read alike.
export const beneficiaryOf = (p) => p.beneficiary || p;
