/** The payload-encryption scheme of a session: fixed by the token endpoint that issued the token. */
export type Scheme = 'v1' | 'v2';

export const SCHEMES: readonly Scheme[] = ['v1', 'v2'];

/** Key material of a merchant: V1 uses both, V2 only the secret key. */
export interface KeyMaterial {
  readonly apiKey: string;
  readonly secretKey: string;
}
