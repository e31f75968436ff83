/**
 * The grid's front door: the router Lambda and what exposes it — an API Gateway REST API with response
 * streaming (the default), a Lambda function URL, a Lambda Web Function running the Node server, or Node
 * server heads as a Fargate service behind a load balancer (infra/router-service.ts).
 */
import { Annotations, CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  DomainName,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  ResponseTransferMode,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { type ISubnet, type IVpc, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import {
  type FunctionUrl,
  FunctionUrlAuthType,
  InvokeMode,
  type Function as LambdaFunction,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ARecord, type IHostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import { ApiGatewayAccountRole } from './api-gateway-account-role';
import { routerFunction } from './grid-function';
import { ALB_MAX_IDLE, RouterService, type RouterServiceProps } from './router-service';
import { RouterWebFunction } from './router-web-function';

/**
 * How clients reach the router.
 *
 * - `rest-api` (default): API Gateway REST API, every route a Lambda proxy integration in STREAM mode
 *   with a 15-minute timeout (a Fargate cold start of 30–60 s is far past the 29 s buffered limit).
 *   Stage throttling, access logs, a custom domain with a wildcard certificate. $3.50 per million
 *   requests — for a 500-command session ≈ $0.00175, about what the browser itself costs on Spot.
 *   Streams idle-time out after 5 minutes; past 10 MB a response is throttled to 2 MB/s.
 * - `function-url`: a Lambda function URL in RESPONSE_STREAM mode. No per-request fee and no idle
 *   limit below the Lambda timeout; no stage throttling (use reserved concurrency), no access logs, and
 *   a custom domain needs CloudFront in front. Auth NONE (gridgate does its own basic auth) or AWS_IAM.
 *   Unverified: AWS documents that function URLs do not stream "within a VPC"; the router is VPC-attached
 *   (FUNCTION_URL_VPC_CAVEAT, a synth warning).
 * - `web-function`: a Lambda Web Function running the Node server itself (functions/entry/node-server.ts,
 *   listening on AWS_LAMBDA_HTTP_ENDPOINT): up to 128 requests share one environment, billed on active
 *   CPU rather than wall time — the router mostly waits on browsers, so this may cost least. VPC egress
 *   through a NetworkConnector; nodejs24.x only; no WebSockets. New in 2026: pricing and limits unverified.
 * - `service`: the Node server (the production build, in a container image built from the repository's
 *   Dockerfile) as ECS Fargate heads behind an Application Load Balancer: WebSockets (BiDi, CDP, live VNC),
 *   no per-request fee, request bodies up to limits.maxBodySize; idle it costs the load balancer and the
 *   minimum heads (the config's `heads`).
 */
export type FrontDoorKind = 'rest-api' | 'function-url' | 'web-function' | 'service';

/**
 * The Lambda developer guide (response streaming) says function URLs do not support response streaming
 * "within a VPC environment", and the router is VPC-attached (it reaches the browsers' private IPs). Whether
 * that means this deployment or only invocations through a VPC endpoint is not settled without an account:
 * until it is, REST stays the default and this front door warns.
 */
export const FUNCTION_URL_VPC_CAVEAT =
  'frontDoor function-url: the Lambda guide says function URLs do not support response streaming "within a VPC environment", and the router is VPC-attached; unverified on AWS, so a new session (30-60 s) may be cut off or buffered. rest-api is the default for this reason.';

/** How long a front door lets a streamed response sit silent: the browser's idle timeout stays below it. */
export const FRONT_DOOR_IDLE_LIMIT: Record<FrontDoorKind, Duration> = {
  // API Gateway REST streaming, Regional: 5 minutes idle.
  'rest-api': Duration.minutes(5),
  // Function URLs and Web Functions are bounded only by the function's timeout.
  'function-url': Duration.minutes(15),
  'web-function': Duration.minutes(15),
  // The load balancer's idle timeout, set from the config up to its maximum (infra/router-service.ts).
  service: ALB_MAX_IDLE,
};

export interface CustomDomainProps {
  /** e.g. grid.example.com; `*.grid.example.com` serves colour subdomains (`blue.grid.example.com`). */
  domainName: string;
  /** A certificate for domainName and *.domainName (in this Region). @default one is issued, validated in hostedZone */
  certificate?: ICertificate;
  /** Where the DNS records (and certificate validation) go. @default no records: point DNS yourself */
  hostedZone?: IHostedZone;
}

export interface FrontDoorProps {
  /** @default 'rest-api' */
  kind?: FrontDoorKind;
  vpc: IVpc;
  subnets: ISubnet[];
  configFile?: string;
  usersFile?: string;
  /** GRIDGATE_DEPLOYMENT, GRIDGATE_SECRET_ARN. */
  environment: Record<string, string>;
  /**
   * The longest one request may take. A new session waits for a free slot (timeouts.queue) and a cold
   * Fargate start (timeouts.newSession); commands can be long too (page loads, async scripts, streamed
   * downloads at 2 MB/s). 15 minutes is what API Gateway streams and Lambda runs at most, and costs
   * nothing unless used: Lambda bills the time actually taken.
   * @default 15 minutes
   */
  timeout?: Duration;
  /**
   * The router waits on browsers and hashes session IDs: I/O, not CPU. 512 MB (a third of a vCPU) keeps
   * JSON and HMAC work in the low milliseconds; a new session waiting 45 s costs ≈ $0.0003 at this size.
   * @default 512
   */
  memorySize?: number;
  /**
   * REST stage throttling: steady requests per second and burst. GridgateStack sizes it from the config's
   * pools (infra/stage-throttle.ts). @default 200 and 400
   */
  throttle?: { rateLimit: number; burstLimit: number };
  /** Function URL auth. @default FunctionUrlAuthType.NONE (gridgate checks basic auth itself) */
  functionUrlAuth?: FunctionUrlAuthType;
  /** Web Function: requests per environment, 1–128. @default 128 */
  maxConcurrencyPerEnvironment?: number;
  /** REST only. */
  customDomain?: CustomDomainProps;
  logRetention?: RetentionDays;
  /** Service: the config (its `heads`, port and timeouts), the browsers' cluster, the load balancer's subnets. */
  service?: Pick<RouterServiceProps, 'config' | 'cluster' | 'publicSubnets' | 'deployment'>;
}

export class FrontDoor extends Construct {
  readonly kind: FrontDoorKind;
  /** The router's security group: the browsers admit WebDriver traffic from it only. */
  readonly securityGroup: SecurityGroup;
  /** The router Lambda (rest-api, function-url). */
  readonly routerFunction?: LambdaFunction;
  readonly api?: RestApi;
  readonly functionUrl?: FunctionUrl;
  readonly webFunction?: RouterWebFunction;
  readonly routerService?: RouterService;
  /** Who gets the router's permissions. */
  readonly grantee: IGrantable;
  /** The base URL clients use, ending in '/'. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: FrontDoorProps) {
    super(scope, id);
    this.kind = props.kind ?? 'rest-api';
    const timeout = props.timeout ?? Duration.minutes(15);
    if (timeout.toSeconds() > 900) throw new Error('FrontDoor: the timeout is at most 15 minutes');
    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'gridgate router: out to browsers, hubs and AWS endpoints',
      allowAllOutbound: true,
    });

    if (this.kind === 'service') {
      if (!props.service) throw new Error('FrontDoor: the service front door needs the service props');
      this.routerService = new RouterService(this, 'Heads', {
        ...props.service,
        vpc: props.vpc,
        subnets: props.subnets,
        securityGroup: this.securityGroup,
        configFile: props.configFile,
        usersFile: props.usersFile,
        environment: { GRIDGATE_SECRET_ARN: props.environment.GRIDGATE_SECRET_ARN as string },
        logRetention: props.logRetention,
      });
      this.grantee = this.routerService.taskDefinition.taskRole;
      this.url = this.routerService.url;
      return;
    }

    if (this.kind === 'web-function') {
      this.webFunction = new RouterWebFunction(this, 'Router', {
        ...props,
        timeout,
        securityGroup: this.securityGroup,
      });
      this.grantee = this.webFunction.function;
      this.url = `https://${this.webFunction.function.endpoint.domainName}/`;
      return;
    }

    const router = routerFunction(this, 'Router', {
      description: 'gridgate router: WebDriver new-session, command proxy, status',
      configFile: props.configFile,
      usersFile: props.usersFile,
      environment: props.environment,
      timeout,
      memorySize: props.memorySize ?? 512,
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [this.securityGroup],
      logRetention: props.logRetention,
    });
    this.routerFunction = router;
    this.grantee = router;

    if (this.kind === 'function-url') {
      this.functionUrl = router.addFunctionUrl({
        authType: props.functionUrlAuth ?? FunctionUrlAuthType.NONE,
        invokeMode: InvokeMode.RESPONSE_STREAM,
      });
      this.url = this.functionUrl.url;
      Annotations.of(this).addWarningV2('gridgate:functionUrlStreamingInVpc', FUNCTION_URL_VPC_CAVEAT);
      return;
    }

    this.api = this.restApi(router, timeout, props);
    this.url = this.api.url;
    if (props.customDomain) this.url = this.addCustomDomain(this.api, props.customDomain);
  }

  private restApi(router: LambdaFunction, timeout: Duration, props: FrontDoorProps): RestApi {
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const throttle = props.throttle ?? { rateLimit: 200, burstLimit: 400 };
    const api = new RestApi(this, 'Api', {
      // API Gateway's metrics are keyed by this name (the dashboard reads them).
      restApiName: `${Stack.of(this).stackName}-webdriver`,
      description: 'gridgate: the WebDriver endpoint',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Access logs need the account's API Gateway CloudWatch role. CDK's own (cloudWatchRole: true) would
      // replace one another stack set; ApiGatewayAccountRole sets it only where none is set.
      cloudWatchRole: false,
      // The router answers every path (W3C errors included), so API Gateway adds nothing of its own.
      deployOptions: {
        stageName: 'grid',
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
    });
    api.deploymentStage.node.addDependency(new ApiGatewayAccountRole(this, 'AccountLoggingRole').resource);
    // STREAM on every route: a new session outlasts the 29 s buffered limit, and screenshots and page
    // sources pass through without a 6 MB cap.
    const integration = new LambdaIntegration(router, {
      responseTransferMode: ResponseTransferMode.STREAM,
      timeout,
    });
    api.root.addMethod('ANY', integration);
    api.root.addProxy({ defaultIntegration: integration, anyMethod: true });
    const acknowledge = (id: string, reason: string) => Validations.of(api).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-APIG2',
      'Every route is a proxy to the router, which validates each WebDriver request against the W3C protocol and answers W3C errors; API Gateway models would duplicate that less precisely.',
    );
    acknowledge(
      'AwsSolutions-APIG3',
      'No WAF by default: it costs at least $5/month plus per-request fees, and the router authenticates every request; attach a web ACL to the stage where policy asks for one.',
    );
    acknowledge(
      'AwsSolutions-APIG4',
      'WebDriver clients speak HTTP Basic auth, which gridgate checks itself (users and htpasswd file in its config); API Gateway authorizers cannot take part in the WebDriver protocol.',
    );
    acknowledge(
      'AwsSolutions-COG4',
      'As for APIG4: WebDriver clients cannot obtain Cognito tokens; gridgate checks Basic auth.',
    );
    acknowledge(
      'AwsSolutions-APIG6',
      "Access logs are on and the router logs every request's outcome; execution logs (API Gateway's per-request debug trace, billed per GB) add nothing the router does not log. Set the stage's loggingLevel where policy asks for them.",
    );
    return api;
  }

  private addCustomDomain(api: RestApi, domain: CustomDomainProps): string {
    const certificate =
      domain.certificate ??
      new Certificate(this, 'Certificate', {
        domainName: domain.domainName,
        subjectAlternativeNames: [`*.${domain.domainName}`],
        validation: domain.hostedZone
          ? CertificateValidation.fromDns(domain.hostedZone)
          : CertificateValidation.fromDns(),
      });
    for (const [id, name] of [
      ['Domain', domain.domainName],
      ['WildcardDomain', `*.${domain.domainName}`],
    ] as const) {
      const domainName = new DomainName(this, id, {
        domainName: name,
        certificate,
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
        mapping: api,
      });
      if (domain.hostedZone) {
        new ARecord(this, `${id}Record`, {
          zone: domain.hostedZone,
          recordName: name,
          target: RecordTarget.fromAlias(new ApiGatewayDomain(domainName)),
        });
      } else {
        new CfnOutput(this, `${id}Target`, {
          description: `CNAME ${name} to this`,
          value: domainName.domainNameAliasDomainName,
        });
      }
    }
    return `https://${domain.domainName}/`;
  }
}
