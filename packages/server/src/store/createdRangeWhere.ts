/** A list's bounds on created_at: the console's IST date filters, as instants. */
export interface CreatedBounds {
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
}

/** SQL conditions on created_at for a range, numbered after the parameters already pushed. */
export function createdRangeWhere(range: CreatedBounds, where: string[], params: unknown[]): void {
  if (range.createdFrom) {
    params.push(range.createdFrom);
    where.push(`created_at >= $${params.length}`);
  }
  if (range.createdBefore) {
    params.push(range.createdBefore);
    where.push(`created_at < $${params.length}`);
  }
}
