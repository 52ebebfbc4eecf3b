/**
 * The TypeScript type of a JSON Schema written `as const`: enough of JSON Schema for the wire schemas of this
 * package (type, type arrays, const, enum, properties, required, additionalProperties, propertyNames given as an
 * enum, items, anyOf, oneOf).
 * It is the one link between a schema and the types written against it: the server's handlers, the SDK's types
 * and the drift tests read the wire through it instead of a second, hand-written description.
 */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? A extends unknown
        ? FromSchema<A>
        : never
      : S extends { oneOf: readonly (infer A)[] }
        ? A extends unknown
          ? FromSchema<A>
          : never
        : S extends { type: readonly (infer T)[] }
          ? T extends unknown
            ? FromSchema<Omit<S, 'type'> & { type: T }>
            : never
          : S extends { type: 'string' }
            ? string
            : S extends { type: 'integer' | 'number' }
              ? number
              : S extends { type: 'boolean' }
                ? boolean
                : S extends { type: 'null' }
                  ? null
                  : S extends { type: 'array' }
                    ? S extends { items: infer I }
                      ? FromSchema<I>[]
                      : unknown[]
                    : S extends { type: 'object' }
                      ? ObjectOf<S>
                      : unknown;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

/** An object of `V`s keyed by any name, or by the names its `propertyNames` enumerates (each one optional). */
type Keyed<S, V> = S extends { propertyNames: { enum: readonly (infer N extends string)[] } }
  ? Partial<Record<N, V>>
  : Record<string, V>;

type Extra<S> = S extends { additionalProperties: true }
  ? Keyed<S, unknown>
  : S extends { additionalProperties: infer A extends object }
    ? Keyed<S, FromSchema<A>>
    : unknown;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      } & Extra<S>
    >
  : S extends { additionalProperties: infer A extends object }
    ? Keyed<S, FromSchema<A>>
    : Keyed<S, unknown>;

/** Every key of `T` (a wire type) is a key of `U`, and the other way round: a compile-time tie of two shapes. */
export type SameKeys<T, U> = [Exclude<keyof T, keyof U>, Exclude<keyof U, keyof T>] extends [never, never]
  ? true
  : { missing: Exclude<keyof T, keyof U>; extra: Exclude<keyof U, keyof T> };
