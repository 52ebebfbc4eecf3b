import { UsageError } from '../../exitCodes.ts';

/** One of an argument and --sender-id, as the SDK's lookup. */
export function lookupOf<K extends string>(idName: K, id: string | undefined, senderId: string | undefined) {
  if ((id === undefined) === (senderId === undefined)) {
    throw new UsageError(`give exactly one of <${idName}> and --sender-id`);
  }
  return (id !== undefined ? { [idName]: id } : { senderId }) as { [P in K]: string } | { senderId: string };
}
