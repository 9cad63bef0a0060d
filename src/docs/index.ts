// The partner guides and the API reference served at /docs on the API host.
export { registerDocsRoutes } from './docs.routes.ts';
