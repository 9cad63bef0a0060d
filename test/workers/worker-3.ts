// One of npm test's worker processes (test/helpers/file-queue.ts).
import { work } from '../helpers/file-queue.ts';

await work();
