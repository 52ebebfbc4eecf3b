/**
 * The sizes of the groups in which the server opened single initiations (issue 34: `PayoutOpenGroups`, one
 * statement per group), read from its histogram `payrail_payout_open_group_size` on /metrics before and after a
 * scenario. The quantiles are the histogram's bucket bounds (1, 2, 3, 4, 6, 8, 12, 16, …): "≤ n".
 */
export interface GroupSizes {
  /** Statements that opened initiations in the scenario. */
  groups: number;
  /** Initiations per statement, on average (exact: the histogram's sum over its count). */
  mean: number;
  /** The bucket bound under which half of the statements fall, and 99 %. */
  median: number;
  p99: number;
}

/** The histogram as it stands: cumulative count per bucket bound, and the sum. */
export interface GroupSnapshot {
  buckets: Map<number, number>;
  sum: number;
}

const NAME = 'payrail_payout_open_group_size';

export async function groupSnapshot(url: string): Promise<GroupSnapshot> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const buckets = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`^${NAME}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))) {
    buckets.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  }
  const sum = Number(new RegExp(`^${NAME}_sum (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { buckets, sum };
}

/** What the scenario between two snapshots did; null when it opened nothing in groups (or the server has no such metric). */
export function groupSizes(before: GroupSnapshot, after: GroupSnapshot): GroupSizes | null {
  const bounds = [...after.buckets.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((le) => (after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0));
  const groups = cumulative.at(-1) ?? 0;
  if (groups === 0) return null;
  const quantile = (q: number) => bounds[cumulative.findIndex((c) => c >= q * groups)] ?? Infinity;
  return { groups, mean: (after.sum - before.sum) / groups, median: quantile(0.5), p99: quantile(0.99) };
}

export const formatGroupSizes = (g: GroupSizes | null | undefined): string =>
  g
    ? `groups of median ≤ ${g.median}, p99 ≤ ${g.p99}, mean ${g.mean.toFixed(1)} (${g.groups} statements)`
    : 'no groups';
