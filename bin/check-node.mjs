// Stops at once, with one line, on a Node.js too old to run the service's TypeScript as it is (Node 24 strips types).
import process from 'node:process';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `The pricing service needs Node.js 24 or newer; this is ${process.version}. Install Node 24 (for instance "nvm install 24", or your system's package manager) and run the command again.\n`,
  );
  process.exit(1);
}
