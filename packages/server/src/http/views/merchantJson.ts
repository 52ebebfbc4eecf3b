import type { Merchant } from '../../domain/Merchant.ts';

/** The signed-in merchant as the console's session answers name it (never its keys). */
export const merchantJson = (m: Merchant) => ({ merchant_id: m.id, name: m.name, status: m.status });
