import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** What Fastify hands a compiler for each route: the schema of one part (body, a response…) and where it is. */
interface RouteSchema {
  schema?: unknown;
}
type Compile = (route: RouteSchema) => unknown;
type Factory = (externalSchemas: unknown, options: unknown) => Compile;

/** Validators and serializers built in this process, by the JSON of what they were built from. */
const built = new Map<string, unknown>();

/**
 * Fastify's own compilers (Ajv for validation, fast-json-stringify for responses), remembering what they built.
 * Compiling every route's schemas is most of an app's start (of about 0.55 s, some 0.3 s for the serializers,
 * mostly fast-json-stringify checking each schema against the meta-schema, and 0.1 s for the validators), and
 * Fastify compiles them again for each app. A process that builds the app once (production) compiles each once
 * either way; one that builds it many times (the tests: a server per file, several files per process) compiles
 * each once. What a compiler builds depends only on the schema, the shared schemas ($ref) and the options, so the
 * key is their JSON: the same text builds the same function, whatever object carries it.
 */
function remembering(kind: string, factory: Factory) {
  return (externalSchemas: unknown, options: unknown): Compile => {
    const compile = factory(externalSchemas, options);
    const context = `${kind}${JSON.stringify([externalSchemas, options])}`;
    return (route) => {
      const key = `${context}${JSON.stringify(route.schema)}`;
      if (!built.has(key)) built.set(key, compile(route));
      return built.get(key);
    };
  };
}

export const rememberingCompilers = (): Factories =>
  ({
    buildValidator: remembering('validator', AjvCompiler() as unknown as Factory),
    buildSerializer: remembering('serializer', SerializerSelector() as unknown as Factory),
  }) as Factories;
