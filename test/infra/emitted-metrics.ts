/**
 * What gridgate's functions actually emit, read from their source: every `…metrics.count|timing|gauge('Name',
 * {dimensions})` call under functions/, with the dimension keys its object literal can carry (spreads of
 * local objects and `cond ? {…} : {}` followed), and every `service` an `EmfMetrics` is built with. The
 * dashboard and alarm tests check what they read against this, so a renamed metric or dimension in the code
 * fails them instead of leaving an empty graph or an alarm that never fires.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface EmittedMetrics {
  /** Metric name → every dimension key some call site may set (besides `service`, which all carry). */
  dimensions: Map<string, Set<string>>;
  /** Metric name → whether some call site sets no dimension at all (the series alarms read by `service` only). */
  bare: Set<string>;
  /** The `service` dimension values: which functions measure. */
  services: Set<string>;
}

const METHODS = new Set(['count', 'timing', 'gauge']);

export function emittedMetrics(root: string): EmittedMetrics {
  const found: EmittedMetrics = { dimensions: new Map(), bare: new Set(), services: new Set() };
  for (const file of sourceFiles(join(root, 'functions'))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) recordCall(source, node, found);
      if (ts.isNewExpression(node)) recordService(source, node, found);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function recordCall(source: ts.SourceFile, call: ts.CallExpression, found: EmittedMetrics): void {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee) || !METHODS.has(callee.name.text)) return;
  if (!/(^|\.)metrics$/.test(callee.expression.getText(source))) return;
  const [name, ...rest] = call.arguments;
  if (!name || !ts.isStringLiteral(name)) return;
  // count(name, dimensions, value), timing(name, ms, dimensions), gauge(name, value, dimensions)
  const dimensionArgument = callee.name.text === 'count' ? rest[0] : rest[1];
  const keys = dimensionArgument ? objectKeys(source, dimensionArgument) : new Set<string>();
  const known = found.dimensions.get(name.text) ?? new Set<string>();
  for (const key of keys) known.add(key);
  found.dimensions.set(name.text, known);
  if (keys.size === 0) found.bare.add(name.text);
}

function recordService(source: ts.SourceFile, node: ts.NewExpression, found: EmittedMetrics): void {
  if (node.expression.getText(source).split('.').pop() !== 'EmfMetrics') return;
  const options = node.arguments?.[0];
  if (!options || !ts.isObjectLiteralExpression(options)) return;
  for (const property of options.properties) {
    if (property.name?.getText(source) !== 'service') continue;
    // `new EmfMetrics({ service })` takes the job's name: follow it to the literals its callers pass.
    const value = ts.isPropertyAssignment(property) ? property.initializer : undefined;
    if (value && ts.isStringLiteral(value)) found.services.add(value.text);
    else for (const service of jobServices(source)) found.services.add(service);
  }
}

/**
 * The service names the job entries pass to `jobWiring('…')`, anywhere in the functions folder `source` is
 * in (entry/ and a kind's own, e.g. pools/ecs/).
 */
function jobServices(source: ts.SourceFile): string[] {
  return sourceFiles(join(source.fileName, '../..'))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/jobWiring\('([^']+)'\)/g)])
    .map((match) => match[1] as string);
}

/** The keys an object expression may have: literal properties, spreads of local objects, both arms of a `?:`. */
function objectKeys(source: ts.SourceFile, node: ts.Expression, depth = 0): Set<string> {
  if (depth > 5) throw new Error(`metric dimensions nest too deep at ${where(source, node)}`);
  const keys = new Set<string>();
  const add = (more: Set<string>) => {
    for (const key of more) keys.add(key);
  };
  if (ts.isParenthesizedExpression(node)) return objectKeys(source, node.expression, depth + 1);
  if (ts.isConditionalExpression(node)) {
    add(objectKeys(source, node.whenTrue, depth + 1));
    add(objectKeys(source, node.whenFalse, depth + 1));
    return keys;
  }
  if (ts.isIdentifier(node)) return objectKeys(source, initializerOf(source, node), depth + 1);
  if (ts.isPropertyAccessExpression(node) && node.expression.kind === ts.SyntaxKind.ThisKeyword) {
    return objectKeys(source, fieldAssignment(source, node.name.text), depth + 1);
  }
  if (!ts.isObjectLiteralExpression(node)) {
    throw new Error(`cannot read the metric dimensions at ${where(source, node)}: ${node.getText(source)}`);
  }
  for (const property of node.properties) {
    if (ts.isSpreadAssignment(property)) add(objectKeys(source, property.expression, depth + 1));
    else if (property.name) keys.add(property.name.getText(source));
  }
  return keys;
}

/** What `this.{name} = …` assigns in the same file (a field a constructor sets once). */
function fieldAssignment(source: ts.SourceFile, name: string): ts.Expression {
  let assigned: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      node.left.expression.kind === ts.SyntaxKind.ThisKeyword &&
      node.left.name.text === name
    ) {
      assigned = node.right;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!assigned) throw new Error(`no assignment to this.${name} in ${source.fileName}`);
  return assigned;
}

/** The initializer of the `const` named `name` in the same file. */
function initializerOf(source: ts.SourceFile, name: ts.Identifier): ts.Expression {
  let initializer: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText(source) === name.text && node.initializer) {
      initializer = node.initializer;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!initializer) throw new Error(`no const ${name.text} in ${source.fileName}`);
  return initializer;
}

function where(source: ts.SourceFile, node: ts.Node): string {
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  return `${source.fileName}:${line + 1}`;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
