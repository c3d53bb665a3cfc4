// Expands the YAML source of the GROQ conformance suite into individual cases, following the rules
// in the suite's README (inheritance, `~slot~` substitution, generated filter/fetch/join variants).
// The suite is data we do not own: it is read from disk at run time and never copied.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';

export type SuiteDataset =
  | { kind: 'inline'; documents: unknown[] }
  | { kind: 'external'; name: string }
  | { kind: 'generated'; documents: unknown[] };

export type SuiteCase = {
  file: string;
  name: string;
  query: string;
  /** `false` when the query must be rejected. */
  valid: boolean;
  result: unknown;
  params: Record<string, unknown> | undefined;
  version: string | undefined;
  features: string[];
  /** null: the case runs on an empty dataset. Cases of one node share the same object. */
  dataset: SuiteDataset | null;
};

type SuiteNode = {
  name?: string;
  query?: string;
  result?: unknown;
  valid?: boolean;
  params?: Record<string, unknown>;
  version?: string;
  features?: string[];
  variables?: Record<string, unknown>;
  standaloneVariables?: string[];
  genFilter?: boolean;
  genFetch?: boolean;
  genJoin?: boolean;
  tests?: SuiteNode[];
  documents?: unknown[];
  dataset?: string | null;
};

type State = Omit<SuiteNode, 'tests' | 'documents'> & { data: SuiteDataset | null; hasResult: boolean };

const SLOT = /~(\w+)~/g;
const HAS_SLOT = /~\w+~/;

/** Documents shared by every generated case: one per distinct JSON text, ids d, d-2, ... */
class GeneratedDataset {
  readonly dataset: Extract<SuiteDataset, { kind: 'generated' }> = { kind: 'generated', documents: [] };
  private readonly byText = new Map<string, { id: string; field: string }>();

  slotDocument(text: string): { id: string; field: string } {
    let entry = this.byText.get(text);
    if (!entry) {
      const n = this.byText.size + 1;
      entry = { id: n === 1 ? 'd' : `d-${n}`, field: n === 1 ? 'f' : `f_${n}` };
      this.byText.set(text, entry);
      this.dataset.documents.push({ _id: entry.id, _type: 'doc', [entry.field]: JSON.parse(text) as unknown });
    }
    return entry;
  }
}

type Slot = { variable: string; text: string };

/**
 * Every combination of slot values, the first slot varying fastest. A slot naming a variable the
 * node does not define keeps its text: a handful of upstream nodes do that (a `variables` list
 * instead of a map, a parent of the nodes defining the variable), and their queries cannot parse.
 */
function* combinations(query: string, variables: Record<string, unknown>): Generator<Slot[]> {
  const names = [...query.matchAll(SLOT)].map((m) => m[1] ?? '');
  const choices = names.map((name) => {
    if (!Object.hasOwn(variables, name)) return [`~${name}~`];
    const value = variables[name];
    return (Array.isArray(value) ? value : [value]).map((v) => String(v));
  });
  if (choices.some((c) => c.length === 0)) return;
  const index = names.map(() => 0);
  for (;;) {
    yield names.map((variable, i) => ({ variable, text: choices[i]?.[index[i] ?? 0] ?? '' }));
    let i = 0;
    while (i < index.length) {
      index[i] = (index[i] ?? 0) + 1;
      if (index[i] !== choices[i]?.length) break;
      index[i] = 0;
      i++;
    }
    if (i === index.length) return;
  }
}

function fill(query: string, slots: Slot[], replace: Map<number, string> = new Map()): string {
  let i = 0;
  return query.replace(SLOT, () => {
    const at = i++;
    return replace.get(at) ?? slots[at]?.text ?? '';
  });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

class Expander {
  readonly cases: SuiteCase[] = [];
  private readonly file: string;
  private readonly generated: GeneratedDataset;

  constructor(file: string, generated: GeneratedDataset) {
    this.file = file;
    this.generated = generated;
  }

  visit(node: SuiteNode, parent: State | null): void {
    const state: State = { ...(parent ?? { data: null, hasResult: false }) };
    for (const [key, value] of Object.entries(node)) {
      if (key === 'tests' || key === 'documents' || key === 'name' || key === 'variables') continue;
      (state as Record<string, unknown>)[key] = value;
    }
    if ('result' in node) state.hasResult = true;
    state.name = parent?.name != null && node.name != null ? `${parent.name} / ${node.name}` : (node.name ?? parent?.name);
    if (parent?.variables || node.variables) state.variables = { ...parent?.variables, ...node.variables };
    if (node.documents) state.data = { kind: 'inline', documents: node.documents };
    else if ('dataset' in node) state.data = typeof node.dataset === 'string' ? { kind: 'external', name: node.dataset } : null;

    this.emit(state);
    for (const child of node.tests ?? []) this.visit(child, state);
  }

  private emit(state: State): void {
    if (state.query == null || !(state.hasResult || state.valid === false)) return;
    if (!state.variables) {
      if (!HAS_SLOT.test(state.query)) this.push(state, state.query, state.result, state.data);
      return;
    }
    // Variants of a query that must be rejected must be rejected too.
    const generate =
      state.data === null && !(state.genFilter === false && state.genFetch === false && state.genJoin === false);
    for (const slots of combinations(state.query, state.variables)) {
      this.push(state, fill(state.query, slots), state.result, state.data);
      if (generate) this.generateVariants(state, slots);
    }
  }

  private generateVariants(state: State, slots: Slot[]): void {
    const standalone = state.standaloneVariables;
    const json = slots.map((s) => (!standalone || standalone.includes(s.variable)) && isJson(s.text));
    const query = state.query ?? '';
    const result = state.result;
    const data = this.generated.dataset;
    slots.forEach((slot, i) => {
      if (!json[i]) return;
      const { id, field } = this.generated.slotDocument(slot.text);
      const withField = fill(query, slots, new Map([[i, field]]));
      if (state.genFilter !== false) {
        this.push(state, `*[_id == "${id}"][${withField}][]._id`, result === true ? [id] : [], data);
        this.push(state, `*[_id == "${id}"][!(${withField})][]._id`, result === false ? [id] : [], data);
      }
      if (state.genFetch !== false) {
        this.push(state, fill(query, slots, new Map([[i, `*[_id == "${id}"][0].${field}`]])), result, data);
      }
      if (state.genJoin !== false && (result === true || result === false || result === null)) {
        for (let j = i + 1; j < slots.length; j++) {
          const other = slots[j];
          if (!json[j] || !other) continue;
          const inner = this.generated.slotDocument(other.text);
          const joined = fill(query, slots, new Map([[i, `^.${field}`], [j, inner.field]]));
          this.push(
            state,
            `*[_id == "${id}"]{"children":*[_id == "${inner.id}"][${joined}][]._id}`,
            [{ children: result === true ? [inner.id] : [] }],
            data,
          );
        }
      }
    });
  }

  private push(state: State, query: string, result: unknown, dataset: SuiteDataset | null): void {
    this.cases.push({
      file: this.file,
      name: state.name ?? '',
      query,
      valid: state.valid !== false,
      result,
      params: state.params,
      version: state.version,
      features: state.features ?? [],
      dataset,
    });
  }
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.yml'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** All cases of the suite under `dir` (the directory holding `test/`). */
export function loadSuiteCases(dir: string): SuiteCase[] {
  const testDir = join(dir, 'test');
  const cases: SuiteCase[] = [];
  const generated = new GeneratedDataset();
  for (const path of yamlFiles(testDir)) {
    const expander = new Expander(relative(testDir, path), generated);
    expander.visit(parseYaml(readFileSync(path, 'utf8')) as SuiteNode, null);
    cases.push(...expander.cases);
  }
  return cases;
}
