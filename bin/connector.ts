// `npm run connector -- …`: the connector kit's command, client/src/connector/cli.ts.
import { connectorCommand } from '../client/src/connector/cli.ts';

process.exitCode = await connectorCommand(process.argv.slice(2));
