import { defineValidator, passed, failed, finding, readText } from './vcc-sdk.js';

export const validator = defineValidator(
  { name: '{{name}}', summary: 'target files contain no TODO' },
  (criterion) => {
    const found = criterion.paths.flatMap((p) =>
      readText(p).split('\n').flatMap((text, i) =>
        text.includes('TODO') ? [finding('TODO left in', { path: p, line: i + 1 })] : []));
    return found.length ? failed(`${found.length} TODO(s)`, found) : passed('no TODO');
  });
