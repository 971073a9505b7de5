// `npm start`: runs the whole service locally in the foreground until SIGINT or SIGTERM.
import { startLocal } from '#lib/local/start.ts';

await startLocal(process.argv.slice(2));
