/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for API tests: every line must be a
 * `# HELP`, a `# TYPE` or a sample of a declared metric (`name{label="value",…} number`), or the test
 * fails on it. Returns the samples, so a test can compare values before and after a turn.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** the value of the sample with this name whose labels include `labels` (0 when there is none) */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: \\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES = ['_bucket', '_sum', '_count'];

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const fail = (why: string) => new Error(`line ${i + 1} ${why}: ${line}`);
    if (line.startsWith('# HELP ')) {
      if (!new RegExp(`^# HELP ${NAME} `).test(line)) throw fail('is a bad HELP line');
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (!TYPES.includes(type)) throw fail('has an unknown type');
      types.set(name, type);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw fail('is not a sample');
    const [, name, rawLabels = '', rawValue] = m;
    const family = types.has(name) ? name : SUFFIXES.map((s) => name.slice(0, -s.length)).find((f) => types.has(f));
    if (!family || !name.startsWith(family)) throw fail('has no TYPE line before it');
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < rawLabels.length) {
      const l = LABEL.exec(rawLabels);
      if (!l) throw fail('has malformed labels');
      labels[l[1]] = l[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    // Go's ParseFloat, as Prometheus reads values: NaN and ±Inf in any letter case (prom-client writes "Nan")
    const special: Record<string, number> = { nan: NaN, inf: Infinity, '+inf': Infinity, '-inf': -Infinity };
    const key = rawValue.toLowerCase();
    const value = key in special ? special[key] : Number(rawValue);
    if (Number.isNaN(value) && key !== 'nan') throw fail('has a value that is not a number');
    samples.push({ name, labels, value });
  }
  return {
    types,
    samples,
    value(name, want = {}) {
      const s = samples.find((x) => x.name === name && Object.entries(want).every(([k, v]) => x.labels[k] === v));
      return s?.value ?? 0;
    },
  };
}
