/** `npx cdk synth [-c config=gridgate.json]`: validates the gridgate config, then builds the stack under cdk-nag. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from '../functions/core/config';
import { readGridConfig } from './grid-config';
import { GridgateStack } from './gridgate-stack';

const app = new App();
try {
  const config = readGridConfig(app.node.tryGetContext('config'));
  // No `env`: an environment-agnostic stack synthesizes offline, with no account or region lookups.
  new GridgateStack(app, 'Gridgate', { config, description: 'gridgate: a serverless WebDriver grid' });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`gridgate: ${error.message}`);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
