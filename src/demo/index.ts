// The demo organization seeded on first start.
export { seedDemo } from './seed-demo.ts';
