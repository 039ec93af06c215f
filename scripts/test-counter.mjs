// node:test reporter that writes {pass, fail, skip} of leaf tests (suites and file wrappers excluded).
export default async function* counter(source) {
  let pass = 0;
  let fail = 0;
  let skip = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    if (d.details?.type === 'suite') continue;
    if (event.type === 'test:fail') {
      // a file that failed to load is reported as one failing test
      fail++;
    } else if (d.skip || d.todo) skip++;
    else if (!(d.nesting === 0 && d.file && d.name === d.file)) pass++;
  }
  yield JSON.stringify({ pass, fail, skip });
}
