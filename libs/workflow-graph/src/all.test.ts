// `node --test dist/` on Node 20 only picks up files named like *.test.js, while our specs follow the
// house naming (*.spec.ts beside each file). Loading them here makes `npm test` run every spec.
import './condition.spec';
import './validate-graph.spec';
import './traverse.spec';
import './layout.spec';
