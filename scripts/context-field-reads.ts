// The reads of the AppContext fields that modules declare, for the no-foreign-context-field rule
// of check-boundaries.ts, which decides which are allowed. Found by type with the compiler: a read
// of `gateway` is one of the field whatever the variable is called, and a type extending
// AppContext (or picking from it) reads the same field.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface ContextFieldRead {
  /** the reading file, relative to the tree's directory, and the line of the read */
  path: string;
  line: number;
  field: string;
  /** the file whose `declare module '../context.ts'` declares the field */
  declaredIn: string;
}

// The service's own compiler options (tsconfig.json), for the trees of the tests too. All of
// them, libraries' types included: a context reached through a library's generic is read too.
const tsconfig = ts.readConfigFile(
  fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
  ts.sys.readFile,
);
const COMPILER_OPTIONS: ts.CompilerOptions = {
  ...ts.convertCompilerOptionsFromJson((tsconfig.config as { compilerOptions: unknown }).compilerOptions, '.')
    .options,
  noEmit: true,
};

/**
 * Every `.field`, `?.field`, `['field']` and destructured `{ field }` of `paths` (src/ files of
 * `baseDir`) that reads a field declared by an augmentation of AppContext. Fields context.ts
 * declares itself are platform's, free to read, and not listed.
 */
export function contextFieldReads(baseDir: string, paths: string[]): ContextFieldRead[] {
  const program = ts.createProgram({
    rootNames: paths.map((path) => join(baseDir, path)),
    options: COMPILER_OPTIONS,
  });
  const checker = program.getTypeChecker();
  const sources = paths.map((path) => [path, program.getSourceFile(join(baseDir, path))!] as const);
  const { declaredIn, names } = augmentedFields(baseDir, sources);
  if (names.size === 0) return [];
  const reads: ContextFieldRead[] = [];
  for (const [path, source] of sources) {
    // Only the files that name a field at all are walked with the checker.
    if (![...names].some((name) => source.text.includes(name))) continue;
    const visit = (node: ts.Node) => {
      const read = fieldRead(checker, node, names);
      const declaration = read?.symbol?.declarations?.find((d) => declaredIn.has(d));
      if (read && declaration) {
        const line = source.getLineAndCharacterOfPosition(read.at.getStart(source)).line + 1;
        reads.push({ path, line, field: read.name, declaredIn: declaredIn.get(declaration)! });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return reads;
}

/** Each member of an `interface AppContext` in a `declare module` of src/context.ts, with its file. */
function augmentedFields(baseDir: string, sources: (readonly [string, ts.SourceFile])[]) {
  const context = join(baseDir, 'src/context.ts');
  const declaredIn = new Map<ts.Node, string>();
  const names = new Set<string>();
  for (const [path, source] of sources) {
    for (const statement of source.statements) {
      if (!ts.isModuleDeclaration(statement) || !ts.isStringLiteral(statement.name)) continue;
      const target = ts.resolveModuleName(statement.name.text, source.fileName, COMPILER_OPTIONS, ts.sys);
      if (target.resolvedModule?.resolvedFileName !== context) continue;
      if (!statement.body || !ts.isModuleBlock(statement.body)) continue;
      for (const declaration of statement.body.statements) {
        if (!ts.isInterfaceDeclaration(declaration) || declaration.name.text !== 'AppContext') continue;
        for (const member of declaration.members) {
          if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteralLike(member.name)))
            continue;
          declaredIn.set(member, path);
          names.add(member.name.text);
        }
      }
    }
  }
  return { declaredIn, names };
}

/** The property `node` reads, if it is `x.name`, `x?.name`, `x['name']` or `{ name }` of x. */
function fieldRead(checker: ts.TypeChecker, node: ts.Node, names: Set<string>) {
  const named = (key: ts.Node | undefined): key is ts.Identifier | ts.StringLiteralLike =>
    !!key && (ts.isIdentifier(key) || ts.isStringLiteralLike(key)) && names.has(key.text);
  const read = (key: ts.Identifier | ts.StringLiteralLike, symbol: ts.Symbol | undefined) => ({
    at: key,
    name: key.text,
    symbol,
  });
  if (ts.isPropertyAccessExpression(node) && named(node.name))
    return read(node.name, checker.getSymbolAtLocation(node.name));
  if (ts.isElementAccessExpression(node) && named(node.argumentExpression))
    return read(node.argumentExpression, checker.getSymbolAtLocation(node.argumentExpression));
  // `const { name } = x`, `({ name }: X) =>`: the pattern has the type of what it destructures
  if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
    const key = node.propertyName ?? node.name;
    if (named(key))
      return read(key, checker.getPropertyOfType(checker.getTypeAtLocation(node.parent), key.text));
  }
  // `({ name } = x)`: an object literal has its own type, so the type is the assigned value's
  if ((ts.isShorthandPropertyAssignment(node) || ts.isPropertyAssignment(node)) && named(node.name)) {
    const from = assignedTo(checker, node.parent as ts.ObjectLiteralExpression);
    if (from) return read(node.name, checker.getPropertyOfType(from, node.name.text));
  }
  return undefined;
}

/** The type of the value an object literal destructures, if it is the target of `=` or nested in one. */
function assignedTo(checker: ts.TypeChecker, literal: ts.ObjectLiteralExpression): ts.Type | undefined {
  const parent = literal.parent;
  if (
    ts.isBinaryExpression(parent) &&
    parent.left === literal &&
    parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
  )
    return checker.getTypeAtLocation(parent.right);
  if (!ts.isPropertyAssignment(parent) || !ts.isObjectLiteralExpression(parent.parent)) return undefined;
  if (!ts.isIdentifier(parent.name) && !ts.isStringLiteralLike(parent.name)) return undefined;
  const outer = assignedTo(checker, parent.parent);
  const property = outer && checker.getPropertyOfType(outer, parent.name.text);
  return property && checker.getTypeOfSymbol(property);
}
