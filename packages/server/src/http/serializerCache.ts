import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/** Serializers built in this process, by what they were built from (the external schemas, options and schema). */
const built = new Map<string, Serializer>();

/**
 * Fastify's own response serializer compiler (fast-json-stringify), remembering what it built. Building the
 * serializers of every route is most of an app's start (about 0.3 s of 0.55 s, mostly fast-json-stringify checking
 * each schema against the JSON Schema meta-schema), and Fastify, which keeps its validators across apps in a
 * process, rebuilds these for each app. A process that builds the app once (production) builds each serializer
 * once either way; one that builds it many times (the tests: a server per file, several per process) builds each
 * once. A serializer depends only on its schema, the shared schemas ($ref) and the options, so the key is their
 * JSON: the same text builds the same function whatever object carries it.
 */
export function rememberingSerializers(): SerializerFactory {
  const fastJsonStringify = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = fastJsonStringify(externalSchemas, options);
    const context = JSON.stringify([externalSchemas, options]);
    return (route) => {
      const key = `${context}${JSON.stringify(route.schema)}`;
      let serializer = built.get(key);
      if (!serializer) {
        serializer = compile(route);
        built.set(key, serializer);
      }
      return serializer;
    };
  };
}
