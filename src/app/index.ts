// The organizer app's pages on the APP host, with their cookies, CSRF and access guards.
export { appNotFound } from './app-scope.ts';
export { registerAppRoutes } from './app.routes.ts';
