/** A query parameter counts as given only when it is a non-empty string (`?x=` is the same as no `x`). */
export const present = (value: unknown): value is string => typeof value === 'string' && value !== '';
