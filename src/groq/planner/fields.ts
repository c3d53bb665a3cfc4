// Field analysis: what each scan's documents are read for. An abstract evaluation of the planned
// query follows where documents go (into filters, projections, maps, order terms, function
// arguments, through `@` and `^`) and records the paths that are read: attributes, and elements
// of arrays at a constant non-negative index (`body[0].children[0].text`). A document that
// escapes whole (returned, spread with `...`, passed to a function, searched by references())
// makes the scan read everything. A source may then return documents holding only the recorded
// paths (and _id and _type): the query cannot tell the difference.
import type { ExprNode, ObjectAttribute } from '../ast.ts';
import { findFunction } from '../functions/registry.ts';
import { outermostPaths } from './read-paths.ts';
import type { ReadPath, ScanConjunct, ScanPlan } from './scan-plan.ts';

type Value =
  | { kind: 'other' }
  /** The value at `path` of a document of `scan` (path [] is the document). */
  | { kind: 'path'; scan: ScanPlan; path: ReadPath }
  /** An array of documents of `scan`. */
  | { kind: 'docs'; scan: ScanPlan };

const OTHER: Value = { kind: 'other' };

/** Scopes as the evaluator makes them (evaluator/scope.ts): element scopes are skipped as parents. */
type Env = { value: Value; hidden: boolean; parent: Env | null };

function nested(env: Env, value: Value): Env {
  return { value, hidden: false, parent: env.hidden ? env.parent : env };
}

function element(env: Env, value: Value): Env {
  return { value, hidden: true, parent: env.hidden ? env.parent : env };
}

class Sink {
  all = false;
  readonly paths = new Map<string, ReadPath>();

  add(path: ReadPath): void {
    if (path.length === 0) this.all = true;
    else this.paths.set(JSON.stringify(path), path);
  }

  merge(other: Sink): void {
    if (other.all) this.all = true;
    for (const [key, path] of other.paths) this.paths.set(key, path);
  }

  /** The paths, without those inside another; null when the whole document is read. */
  fields(): ReadPath[] | null {
    if (this.all) return null;
    return outermostPaths([...this.paths.values()]);
  }
}

class Analysis {
  private readonly sinks = new Map<ScanPlan, Sink>();
  /** While a conjunct of a scan is analyzed, its reads of that scan's documents go to its own sink. */
  private readonly overrides = new Map<ScanPlan, Sink>();
  private readonly conjunctSinks = new Map<ScanConjunct, Sink>();

  private sinkOf(scan: ScanPlan): Sink {
    const override = this.overrides.get(scan);
    if (override) return override;
    let sink = this.sinks.get(scan);
    if (!sink) {
      sink = new Sink();
      this.sinks.set(scan, sink);
    }
    return sink;
  }

  /** The whole value is read. */
  read(value: Value): void {
    if (value.kind === 'path') this.sinkOf(value.scan).add(value.path);
    else if (value.kind === 'docs') this.sinkOf(value.scan).add([]);
  }

  use(node: ExprNode, env: Env): void {
    this.read(this.visit(node, env));
  }

  /** The abstract value of `node`; its parts are read as evaluating it reads them. */
  visit(node: ExprNode, env: Env): Value {
    switch (node.type) {
      case 'Everything':
      case 'Value':
      case 'Parameter':
        return OTHER;
      case 'This':
        return env.value;
      case 'Parent': {
        let scope: Env | null = env;
        for (let i = 0; i < node.levels && scope; i++) scope = scope.parent;
        return scope ? scope.value : OTHER;
      }
      case 'AccessAttribute': {
        const base = node.base ? this.visit(node.base, env) : env.value;
        return base.kind === 'path' ? { kind: 'path', scan: base.scan, path: [...base.path, node.name] } : OTHER;
      }
      case 'Group':
        return this.visit(node.base, env);
      case 'AccessElement': {
        const base = this.visit(node.base, env);
        if (base.kind === 'docs') return { kind: 'path', scan: base.scan, path: [] };
        // A negative index counts from the end: the whole array is read to know its length.
        if (base.kind === 'path' && Number.isSafeInteger(node.index) && node.index >= 0) return { kind: 'path', scan: base.scan, path: [...base.path, node.index] };
        this.read(base);
        return OTHER;
      }
      case 'Slice':
      case 'ArrayCoerce': {
        if (node.type === 'Slice') {
          this.use(node.left, env);
          this.use(node.right, env);
        }
        const base = this.visit(node.base, env);
        if (base.kind === 'docs') return base;
        this.read(base);
        return OTHER;
      }
      case 'Deref': {
        const base = this.visit(node.base, env);
        if (base.kind === 'path') this.read({ ...base, path: [...base.path, '_ref'] });
        return OTHER;
      }
      case 'Not':
      case 'Neg':
      case 'Pos':
        this.use(node.base, env);
        return OTHER;
      case 'And':
      case 'Or':
      case 'OpCall':
        this.use(node.left, env);
        this.use(node.right, env);
        return OTHER;
      case 'InRange':
        this.use(node.base, env);
        this.use(node.left, env);
        this.use(node.right, env);
        return OTHER;
      case 'Array':
        for (const e of node.elements) this.use(e.value, env);
        return OTHER;
      case 'Object':
        this.attributes(node.attributes, env);
        return OTHER;
      case 'Select':
        for (const a of node.alternatives) {
          this.use(a.condition, env);
          this.use(a.value, env);
        }
        if (node.fallback) this.use(node.fallback, env);
        return OTHER;
      case 'FuncCall': {
        const fn = findFunction(node.namespace, node.name);
        if (fn?.reads === 'this') this.read(env.value);
        if (node.namespace === 'global' && node.name === 'count' && node.args.length === 1) {
          // count() of documents reads none of them.
          const arg = this.visit(node.args[0]!, env);
          if (arg.kind !== 'docs') this.read(arg);
          return OTHER;
        }
        for (const arg of node.args) this.use(arg, env);
        // Selector expressions (diff::) run on parts of the compared values, which are read whole.
        return OTHER;
      }
      case 'Filter':
      case 'Order': {
        const base = this.visit(node.base, env);
        const item = this.itemOf(base);
        const scope = nested(env, item);
        if (node.type === 'Filter') this.use(node.expr, scope);
        else for (const term of node.terms) this.use(term.expr, scope);
        return base.kind === 'docs' ? base : OTHER;
      }
      case 'Map':
      case 'FlatMap': {
        const base = this.visit(node.base, env);
        this.use(node.expr, element(env, this.itemOf(base)));
        return OTHER;
      }
      case 'Projection': {
        const base = this.visit(node.base, env);
        let item: Value = OTHER;
        if (base.kind === 'path' && base.path.length === 0) item = base;
        else this.read(base);
        this.attributes(node.expr.attributes, nested(env, item));
        return OTHER;
      }
      case 'Score': {
        // score() returns copies of the documents: all of them is read.
        const base = this.visit(node.base, env);
        this.read(base);
        for (const term of node.terms) this.use(term, nested(env, this.itemOf(base)));
        return OTHER;
      }
      case 'Scan':
        return this.scan(node.plan, env);
    }
  }

  /** The element of an array value: a document of a scan, or something else (read whole). */
  private itemOf(base: Value): Value {
    if (base.kind === 'docs') return { kind: 'path', scan: base.scan, path: [] };
    this.read(base);
    return OTHER;
  }

  private attributes(attributes: readonly ObjectAttribute[], env: Env): void {
    for (const a of attributes) {
      if (a.type === 'ObjectConditionalSplat') this.use(a.condition, env);
      this.use(a.value, env);
    }
  }

  private scan(plan: ScanPlan, env: Env): Value {
    const doc: Value = { kind: 'path', scan: plan, path: [] };
    const scope = nested(env, doc);
    this.sinkOf(plan);
    for (const conjunct of plan.conjuncts) {
      const sink = new Sink();
      this.conjunctSinks.set(conjunct, sink);
      const saved = this.overrides.get(plan);
      this.overrides.set(plan, sink);
      this.use(conjunct.expr, scope);
      if (saved) this.overrides.set(plan, saved);
      else this.overrides.delete(plan);
    }
    for (const term of plan.order ?? []) this.use(term.expr, scope);
    if (plan.range?.kind === 'slice') {
      this.use(plan.range.left, env);
      this.use(plan.range.right, env);
    }
    if (plan.count) return OTHER;
    return plan.range?.kind === 'element' ? doc : { kind: 'docs', scan: plan };
  }

  finish(): void {
    for (const [plan, sink] of this.sinks) {
      const all = new Sink();
      all.merge(sink);
      for (const conjunct of plan.conjuncts) {
        const own = this.conjunctSinks.get(conjunct) ?? new Sink();
        conjunct.fields = own.fields();
        // A conjunct no source can apply is always evaluated.
        if (!conjunct.template) all.merge(own);
      }
      plan.fields = all.fields();
    }
  }
}

/** Records on every Scan node of a planned query what its documents are read for. */
export function analyzeFields(root: ExprNode): void {
  const analysis = new Analysis();
  analysis.use(root, { value: OTHER, hidden: false, parent: null });
  analysis.finish();
}
