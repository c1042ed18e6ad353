// Write a vcc validator component in JavaScript (with componentize-js).
//
// A validator is one function, wrapped by `defineValidator` and exported
// as `validator` (the name of the interface the component exports):
//
//   import { defineValidator, passed, failed, finding, readText } from './vcc-sdk.js';
//
//   export const validator = defineValidator(
//     { name: 'no-todo', summary: 'target files contain no TODO' },
//     (criterion) => {
//       const found = criterion.paths.flatMap((p) =>
//         readText(p).split('\n').flatMap((text, i) =>
//           text.includes('TODO') ? [finding('TODO left in', { path: p, line: i + 1 })] : []));
//       return found.length ? failed(`${found.length} TODO(s)`, found) : passed('no TODO');
//     });
//
// `vcc validator build` writes this file next to the validator and runs
// componentize-js against the `vcc:validator` WIT, which generates the
// bindings behind the import below at build time.
//
// Return `failed(...)` when the deliverables do not meet the criterion.
// Throw only when the validator itself cannot work: the host records status
// `error`, never a pass.

import {
  listFiles,
  readFile,
  statFile,
  listDeliverables,
  signatures as hostSignatures,
} from 'vcc:validator/deliverables@0.1.4';
import { judges as hostJudges, complete as hostComplete } from 'vcc:validator/judge@0.1.4';

/** Where the host mounts the deliverable root (read-only). */
export const MOUNT = '/deliverables';
/** The `vcc:validator` version this SDK targets. */
export const WIT_VERSION = '0.1.4';
/** How a validator error says the params are wrong (reason `invalid_params`). */
export const INVALID_PARAMS = 'invalid params:';

/** Where `defineValidator` keeps its `checkParams`, for `paramsExport`. */
const CHECK_PARAMS = Symbol('checkParams');

/** Throw from a check function when the params are wrong, not the deliverables. */
export class InvalidParams extends Error {}

/** Host calls throw on `err`; rethrow as an Error carrying the message. */
function host(call, ...args) {
  try {
    return call(...args);
  } catch (err) {
    throw new Error(String(err?.payload ?? err?.message ?? err));
  }
}

/** The files of any deliverable of the contract, by id. */
export function files(deliverable) {
  return host(listFiles, deliverable);
}

/** The ids of every deliverable of the contract, in contract order. */
export function deliverableIds() {
  return host(listDeliverables);
}

/** The bytes of a file the host hashed (recorded in `files_read`). */
export function read(path) {
  return host(readFile, path);
}

export function readText(path) {
  // Fatal: a file that is not UTF-8 is an error, never text with
  // replacement characters a check would read past.
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(read(path));
  } catch (e) {
    if (e instanceof TypeError) {
      throw new Error(`${relative(path)} is not UTF-8 text: read it as bytes with read(path)`);
    }
    throw e;
  }
}

/** Size and digest of a file, without reading it. */
export function stat(path) {
  return host(statFile, path);
}

/**
 * Who signed a file, as the host verified it against the trust policy:
 * `{ signers, problems: [{ code, message }] }`; `signers` is empty unless
 * the policy's threshold is met. Since vcc:validator@0.1.3.
 */
export function signatures(path) {
  return hostSignatures(path);
}

/**
 * The AI judges the contract grants this criterion, in its order (empty:
 * none). Since vcc:validator@0.1.4.
 */
export function judges() {
  return hostJudges();
}

/**
 * One request to a judge: the question (`user`), an optional `system`
 * message, snapshot files by digest (`stat(path).digest`: the host adds
 * their text as delimited, untrusted data), the JSON Schema the answer must
 * match (an object or JSON text), and the sample index (K samples are K
 * requests). `judge`: a granted judge ('' is the first). The validator
 * never holds a key or picks a model.
 */
export function judgeRequest({ user, system, files = [], schema, sample = 0, judge = '' }) {
  const messages = [];
  if (system !== undefined) messages.push({ role: 'system', content: String(system) });
  messages.push({ role: 'user', content: String(user) });
  return {
    judge,
    messages,
    files: [...files],
    schema: schema === undefined ? undefined : typeof schema === 'string' ? schema : JSON.stringify(schema),
    sample,
  };
}

/**
 * Ask the host for completions; it runs them at once. One item per request,
 * in order: `{ ok: true, text, model, call }` (with a schema, `text` is the
 * checked JSON document) or `{ ok: false, error }` — a request the host
 * could not answer (an endpoint error, a timeout, a spent budget, a replay
 * miss, an answer off the schema): never guess an answer in its place.
 * Since vcc:validator@0.1.4.
 */
export function complete(requests) {
  return hostComplete(requests).map((result) =>
    result.tag === 'ok'
      ? { ok: true, text: result.val.text, model: result.val.model, call: result.val.call }
      : { ok: false, error: String(result.val) });
}

/** A guest path made relative to the deliverable root, for messages. */
export function relative(path) {
  if (path === MOUNT) return '';
  return path.startsWith(MOUNT + '/') ? path.slice(MOUNT.length + 1) : path;
}

/** A finding; `path` may be a guest path or relative to the root. */
export function finding(message, { path, line, column, rule } = {}) {
  return {
    message: String(message),
    path: path === undefined ? undefined : relative(path),
    line,
    column,
    rule,
  };
}

/** Bytes kept with the report (a string is encoded as UTF-8). */
export function evidence(name, mediaType, data) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
  return { name, mediaType, bytes };
}

const outcome = (status) => (summary, findings = [], evidence = []) => ({
  status,
  summary: String(summary),
  findings,
  evidence,
});
export const passed = outcome('pass');
export const failed = outcome('fail');
export const skipped = outcome('skip');

/**
 * The exported `validator` interface for one check function.
 * `check(criterion)` gets `{ id, params, targets: { id: [paths] }, paths }`.
 * `checkParams(params)` (optional) gets the parsed params and returns the
 * findings the schema cannot catch (`finding(message, { path: '/a/0' })`,
 * a JSON pointer); `vcc lint` reports each as INVALID_PARAMS.
 */
export function defineValidator({ name, version = '0.1.0', summary = '', params, checkParams }, check) {
  const schema = params ?? { type: 'object', additionalProperties: false };
  return {
    [CHECK_PARAMS]: checkParams,
    describe() {
      return { name, version, summary, paramsSchema: JSON.stringify(schema) };
    },
    validate(raw) {
      const criterion = {
        id: raw.id,
        params: JSON.parse(raw.params || '{}'),
        targets: Object.fromEntries(raw.targets.map((t) => [t.id, t.paths])),
        paths: raw.targets.flatMap((t) => t.paths),
      };
      let result;
      try {
        result = check(criterion);
      } catch (err) {
        if (err instanceof InvalidParams) throw `${INVALID_PARAMS} ${err.message}`;
        // The validator cannot work: an error for the host, never a pass.
        throw `${err?.name ?? 'Error'}: ${err?.message ?? err}`;
      }
      if (!result || !['pass', 'fail', 'skip'].includes(result.status)) {
        throw 'check() must return passed(...), failed(...) or skipped(...)';
      }
      return result;
    },
  };
}

/**
 * The exported `params` interface (check-params) of a validator made by
 * `defineValidator`. `vcc validator build` exports it for you, next to
 * `validator`, from a generated entry module.
 */
export function paramsExport(validator) {
  return {
    checkParams(text) {
      const check = validator?.[CHECK_PARAMS];
      if (!check) return;
      let found;
      try {
        found = check(JSON.parse(text || '{}')) ?? [];
      } catch (err) {
        found = [finding(`${err?.name ?? 'Error'}: ${err?.message ?? err}`)];
      }
      if (found.length) throw found;
    },
  };
}
