/** The payload-encryption schemes, as the operator answers' enums name them. */
export const SCHEME_NAMES = ['v1', 'v2'] as const;
