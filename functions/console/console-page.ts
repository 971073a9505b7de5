// GET /console and GET and POST of the other console pages no more specific route claims: the front page, batches, write-backs, cost and adherence.
import { consoleRoutesHandler } from '#edge/console/endpoint.ts';
import { servePages } from '#edge/console/router.ts';
import { reportPages } from '#edge/console/sections/reports.ts';

const serve = servePages(reportPages);

export const handler = consoleRoutesHandler({ consoleHome: serve, consolePage: serve, consoleAction: serve });
