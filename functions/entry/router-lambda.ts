/**
 * The router Lambda: the one app (createApp) behind API Gateway REST with response streaming (payload
 * 1.0) and a function URL in RESPONSE_STREAM mode (payload 2.0). Built once per environment, at init.
 */

import { createApp } from '../http/create-app';
import { streamingHandler } from '../servers/lambda/streaming-handler';
import { awsGrid } from './aws-grid';

const { deps, agent } = await awsGrid();
// WebSockets cannot pass through Lambda: new sessions answer without webSocketUrl and se:cdp. API Gateway
// and function URLs answer their own names only, over TLS: no name can be rebound to them (DNS rebinding).
const app = createApp(deps, { agent, webSockets: false, knownHostsOnly: false });

export const handler = streamingHandler((request, env) => app.fetch(request, env), {
  onError: (error) => deps.logger.log('REQUEST_FAILED', { error: String(error) }),
});
