// The SDK conformance validator in JavaScript (spec: sdk/conformance/README.md).
import {
  defineValidator, passed, failed, skipped, finding, evidence, readText, relative, stat, InvalidParams,
  judges, judgeRequest, complete, signatures,
} from './vcc-sdk.js';

const params = {
  type: 'object',
  additionalProperties: false,
  required: ['word'],
  properties: {
    word: { type: 'string', minLength: 1 },
    max: { type: 'integer', minimum: 0, default: 0 },
    mode: { enum: ['check', 'skip', 'error', 'params-error', 'judge', 'signatures'], default: 'check' },
  },
};

const SCORE = {
  type: 'object',
  additionalProperties: false,
  required: ['score'],
  properties: { score: { type: 'integer', minimum: 1, maximum: 5 } },
};

function judged(criterion, word) {
  if (judges().length === 0) throw new Error('no judge granted');
  const paths = criterion.paths.flatMap((path) => [path, path]);
  const asks = paths.map((path, i) => judgeRequest({
    user: `Rate the document for the word ${word} from 1 to 5.`,
    system: 'You rate documents.',
    files: [stat(path).digest],
    schema: SCORE,
    sample: i % 2,
  }));
  const answers = complete(asks);
  const failedCall = answers.find((a) => !a.ok);
  if (failedCall) throw new Error(`judge: ${failedCall.error}`);
  const scores = answers.map((a) => JSON.parse(a.text).score);
  const findings = scores.flatMap((s, i) =>
    s < 3 ? [finding(`score ${s}`, { path: paths[i], rule: 'judge' })] : []);
  const proof = [evidence('calls.json', 'application/json', JSON.stringify(answers.map((a) => a.call)))];
  const summary = `scores ${scores.join(',')}`;
  return findings.length ? failed(summary, findings, proof) : passed(summary, findings, proof);
}

function signed(criterion) {
  const signers = {};
  const findings = [];
  for (const path of criterion.paths) {
    const check = signatures(path);
    if (check.signers.length === 0) {
      const code = check.problems.length ? check.problems[0].code : 'none';
      findings.push(finding(`not signed: ${code}`, { path, rule: 'signature' }));
    }
    signers[relative(path)] = [...check.signers];
  }
  const total = criterion.paths.length;
  const sorted = Object.fromEntries(Object.keys(signers).sort().map((k) => [k, signers[k]]));
  const proof = [evidence('signers.json', 'application/json', JSON.stringify(sorted))];
  const summary = `${total - findings.length} of ${total} file(s) signed`;
  return findings.length ? failed(summary, findings, proof) : passed(summary, findings, proof);
}

const checkParams = ({ word = '' }) =>
  /\s/.test(word) ? [finding('word must be one word', { path: '/word' })] : [];

export const validator = defineValidator(
  { name: 'conformance', summary: 'counts lines containing a word (the SDK conformance validator)', params, checkParams },
  (criterion) => {
    const { word, max = 0, mode = 'check' } = criterion.params;
    if (mode === 'skip') return skipped('asked to skip');
    if (mode === 'error') throw new Error('asked to fail');
    if (mode === 'params-error') throw new InvalidParams('asked to blame the params');
    if (mode === 'judge') return judged(criterion, word);
    if (mode === 'signatures') return signed(criterion);
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
