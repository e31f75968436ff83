/**
 * What no gridgate Lambda loads, left out of every Lambda's asset (the router's, router-bundle-options.ts;
 * the cleanup's and the Spot interruption handler's, infra/grid-function.ts): the kubeconfig pod API (the
 * Kubernetes client, megabytes) serves only eks pools that name a kubeconfig, which the Node server runs
 * (behind the router an eks pool signs EKS tokens itself, and the cleanup reaches pods the same way); local and
 * container pools run on the Node server only, and a Lambda's config refuses them (deployed-config.ts), so
 * their kinds' load() is never called there. Each is reached only by a dynamic import, which esbuild bundles
 * unless told not to.
 */
export const NOT_IN_LAMBDAS = ['*/eks-kubeconfig', '*/local-pool-runtime', '*/container-pool-runtime'];

/**
 * Left out of the background Lambdas' single-file bundles (infra/grid-function.ts): the Lambda runtime's AWS
 * SDK, as NodejsFunction leaves it out by default for Node 22, and what no Lambda loads.
 */
export const JOB_LAMBDA_EXTERNALS = ['@aws-sdk/*', ...NOT_IN_LAMBDAS];
