// The SDK conformance validator in JavaScript (spec: sdk/conformance/README.md).
import { defineValidator, passed, failed, skipped, finding, evidence, readText, relative, InvalidParams } from './vcc-sdk.js';

const params = {
  type: 'object',
  additionalProperties: false,
  required: ['word'],
  properties: {
    word: { type: 'string', minLength: 1 },
    max: { type: 'integer', minimum: 0, default: 0 },
    mode: { enum: ['check', 'skip', 'error', 'params-error'], default: 'check' },
  },
};

const checkParams = ({ word = '' }) =>
  /\s/.test(word) ? [finding('word must be one word', { path: '/word' })] : [];

export const validator = defineValidator(
  { name: 'conformance', summary: 'counts lines containing a word (the SDK conformance validator)', params, checkParams },
  (criterion) => {
    const { word, max = 0, mode = 'check' } = criterion.params;
    if (mode === 'skip') return skipped('asked to skip');
    if (mode === 'error') throw new Error('asked to fail');
    if (mode === 'params-error') throw new InvalidParams('asked to blame the params');
    const counts = {};
    const findings = [];
    for (const path of criterion.paths) {
      let n = 0;
      readText(path).split('\n').forEach((line, i) => {
        if (line.includes(word)) {
          n += 1;
          findings.push(finding(`found ${word}`, { path, line: i + 1, rule: 'word' }));
        }
      });
      counts[relative(path)] = n;
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const sorted = Object.fromEntries(Object.keys(counts).sort().map((k) => [k, counts[k]]));
    const proof = [evidence('counts.json', 'application/json', JSON.stringify(sorted))];
    const summary = `${total} occurrence(s) of ${word}`;
    return total > max ? failed(summary, findings, proof) : passed(summary, findings, proof);
  });
