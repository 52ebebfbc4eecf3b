export * from './common.ts';
export * from './merchant.ts';
export * from './admin/index.ts';
export * from './console.ts';
export * from './exceptions.ts';
export * from './ops.ts';
export * from './routes.ts';
export type * from './wireTies.ts';
export type * from './routeTypes.ts';
