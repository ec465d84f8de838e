#!/usr/bin/env node
'use strict';
// Runs a .tflite model with LiteRT.js (TFLite compiled to WebAssembly, CPU) in plain Node.js.
//
//   node run_tflite.cjs [options] model.tflite out_dir in0.npy [in1.npy ...]
//   node run_tflite.cjs [options] --batch jobs.txt
//
// Inputs are .npy files, one per model input in the model's (signature's) input order, of the
// input's exact dtype and shape. Each output i is written as out_dir/output_<i>.npy (model dtype
// and shape), plus out_dir/run_info.json: runtime version, Wasm build, which nodes the XNNPACK
// delegate took, input/output names, dtypes, shapes, timings, and the LiteRT log.
//
// jobs.txt (batch mode): one job a line, "model.tflite out_dir in0.npy [in1.npy ...]",
// whitespace-separated (no spaces inside paths), '#' starts a comment. Paths are relative to
// the current directory. All jobs run in one process (the Wasm module is loaded once); a failing
// job is reported on stderr and the others still run. Exit status: 0 if every job succeeded.
//
// Options:
//   --build auto|compat|relaxed|threaded|jspi   Wasm build to load (default auto: LiteRT.js
//                  picks relaxed SIMD if the engine has it, else compat; Node 20 -> compat)
//   --threads N    CPU threads for the compiled model (default 1; >1 needs the threaded build)
//   --time N       after the run, invoke N more times and print the median latency (us)
//   --log          echo LiteRT's log to stderr as it is printed
//   --allow-log-errors   do not fail on error lines in LiteRT's log (for investigation only)
//
// Exit status: 0 success; 1 a model failed to load / compile / run, or LiteRT logged an error;
// 2 bad usage or input files.
//
// Element types: LiteRT.js's high-level Tensor API takes only float32, int32 and uint8, so this
// runner drives the lower-level LiteRtTensorBuffer API, which takes any fixed-size element type:
// int8, uint8, int16, int32, int64, float16, float32, bool... (see README.md).

const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('./npy.cjs');
const { loadLiteRt, log, findLogErrors } = require('./litert_node.cjs');

// litert::ElementType values -> numpy dtype names.
const ELEMENT_TYPES = {
  1: 'float32', 2: 'int32', 3: 'uint8', 4: 'int64', 6: 'bool', 7: 'int16', 9: 'int8',
  10: 'float16', 11: 'float64', 13: 'uint64', 16: 'uint32', 17: 'uint16',
};
const ELEMENT_TYPE_NAMES = {
  0: 'NONE', 1: 'FLOAT32', 2: 'INT32', 3: 'UINT8', 4: 'INT64', 5: 'STRING', 6: 'BOOL', 7: 'INT16',
  8: 'COMPLEX64', 9: 'INT8', 10: 'FLOAT16', 11: 'FLOAT64', 12: 'COMPLEX128', 13: 'UINT64',
  14: 'RESOURCE', 15: 'VARIANT', 16: 'UINT32', 17: 'UINT16', 18: 'INT4', 19: 'BFLOAT16',
};

class UsageError extends Error {}

function usage(message) {
  const text = 'usage: node run_tflite.cjs [--build B] [--threads N] [--time N] [--log] model.tflite out_dir in0.npy [in1.npy ...]\n' +
    '       node run_tflite.cjs [options] --batch jobs.txt   (each line: model.tflite out_dir in0.npy ...)';
  throw new UsageError(message ? `${message}\n${text}` : text);
}

function parseArgs(argv) {
  const opts = { build: 'auto', threads: 1, time: 0, echo: false, allowLogErrors: false, batch: null, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    const intValue = (min) => {
      const s = value();
      const n = Number(s);
      if (!Number.isInteger(n) || n < min) usage(`${a} needs an integer >= ${min}, got '${s}'`);
      return n;
    };
    if (a === '--build') opts.build = value();
    else if (a === '--threads') opts.threads = intValue(1);
    else if (a === '--time') opts.time = intValue(0);
    else if (a === '--log') opts.echo = true;
    else if (a === '--allow-log-errors') opts.allowLogErrors = true;
    else if (a === '--batch') opts.batch = value();
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else opts.positional.push(a);
  }
  if (opts.batch && opts.positional.length) usage('--batch takes no model arguments');
  if (!opts.batch && opts.positional.length < 2) usage();
  return opts;
}

function vectorToArray(vec) {
  const out = [];
  for (let i = 0; i < vec.size(); i++) out.push(vec.get(i));
  vec.delete();
  return out;
}

function describeType(rankedType) {
  const et = rankedType.elementType().value;
  const layout = rankedType.layout();
  const dims = vectorToArray(layout.dimensions());
  layout.delete();
  return { elementType: et, dtype: ELEMENT_TYPES[et] || null, typeName: ELEMENT_TYPE_NAMES[et] || String(et), shape: dims };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function sameShape(a, b) {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

// Delegate facts from TFLite's log, e.g.
// "INFO: Replacing 3 out of 3 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 1 partitions for subgraph 0 (main)."
function delegateSummary(lines) {
  const replaced = [];
  for (const { line } of lines) {
    const m = /Replacing (\d+) out of (\d+) node\(s\) with delegate \(([^)]*)\) node, yielding (\d+) partitions?(?: for subgraph (\d+))?/.exec(line);
    if (m) replaced.push({ delegate: m[3], nodes: Number(m[1]), of: Number(m[2]), partitions: Number(m[4]), subgraph: m[5] === undefined ? null : Number(m[5]) });
  }
  return replaced;
}

// Runs one model. Throws on any failure; returns the run_info object.
async function runJob(rt, opts, modelPath, outDir, inputPaths) {
  const { wasm, liteRt } = rt;
  const logStart = log.lines.length;
  const t0 = process.hrtime.bigint();
  const toDelete = [];
  let modelPtr = 0;
  const info = {
    runner: 'run_tflite.cjs', runtime: `@litertjs/core ${rt.version}`, wasm_build: rt.script,
    model: modelPath, accelerator: 'wasm', threads: opts.threads,
  };
  // Failure with LiteRT's own error lines attached (its exceptions say little by themselves).
  const fail = (msg) => {
    const errs = findLogErrors(log.lines.slice(logStart));
    const e = new Error(errs.length ? `${msg}\n  ${errs.join('\n  ')}` : msg);
    e.info = info;
    throw e;
  };
  const checkLog = (stage) => {
    if (findLogErrors(log.lines.slice(logStart)).length && !opts.allowLogErrors) {
      fail(`LiteRT reported an error during ${stage} (LiteRT.js does not throw for these; its outputs would be garbage):`);
    }
  };
  try {
    let bytes;
    try {
      bytes = fs.readFileSync(modelPath);
    } catch (e) {
      throw new UsageError(`cannot read model ${modelPath}: ${e.message}`);
    }
    const inputs = inputPaths.map((p) => {
      try {
        return readNpy(p);
      } catch (e) {
        throw new UsageError(`cannot read input ${p}: ${e.message}`);
      }
    });
    const env = liteRt.getDefaultEnvironment();
    modelPtr = wasm._malloc(bytes.length);
    wasm.HEAPU8.set(bytes, modelPtr);
    let model;
    try {
      model = wasm.loadModel(env.liteRtEnvironment, modelPtr, bytes.length);
    } catch (e) {
      fail(`LiteRT could not load ${modelPath}: ${e.message || e}`);
    }
    toDelete.push(model);
    checkLog('model loading');
    const compileOptions = {
      environment: env, accelerator: 'wasm', cpuOptions: { numThreads: opts.threads }, gpuOptions: {}, webNNOptions: {},
    };
    let compiled;
    try {
      compiled = await wasm.compileModel(env.liteRtEnvironment, model, compileOptions);
    } catch (e) {
      fail(`LiteRT could not compile ${modelPath}: ${e.message || e}`);
    }
    toDelete.push(compiled);
    checkLog('compilation');
    const t1 = process.hrtime.bigint();

    const nsig = model.getNumSignatures();
    if (nsig < 1) fail('model has no signature');
    const sig = model.getSignature(0);
    toDelete.push(sig);
    info.signature = sig.key();
    const inputNames = vectorToArray(sig.inputNames());
    const outputNames = vectorToArray(sig.outputNames());
    info.inputs = inputNames.map((name, i) => {
      const t = model.getInputTensorType(0, i);
      const d = describeType(t);
      t.delete();
      return { name, dtype: d.dtype || d.typeName, shape: d.shape };
    });
    if (inputs.length !== inputNames.length) {
      throw new UsageError(`${modelPath} has ${inputNames.length} input(s) (${inputNames.join(', ')}), got ${inputs.length} .npy file(s)`);
    }
    const inputBuffers = [];
    for (let i = 0; i < inputs.length; i++) {
      const want = info.inputs[i];
      const got = inputs[i];
      if (got.dtype !== want.dtype) throw new UsageError(`input ${i} (${want.name}): model wants ${want.dtype}, ${inputPaths[i]} is ${got.dtype}`);
      if (!sameShape(got.shape, want.shape)) {
        throw new UsageError(`input ${i} (${want.name}): model wants shape ${JSON.stringify(want.shape)}, ${inputPaths[i]} has ${JSON.stringify(got.shape)}`);
      }
      const tensorType = model.getInputTensorType(0, i);
      const req = compiled.getInputBufferRequirements(0, i);
      const buf = wasm.LiteRtTensorBuffer.createManaged(env.liteRtEnvironment, wasm.LiteRtTensorBufferType.HOST_MEMORY, tensorType, got.bytes.length);
      toDelete.push(buf);
      try {
        wasm.checkTensorBufferCompatible(buf, tensorType, req);
      } catch (e) {
        fail(`input ${i} (${want.name}): tensor buffer not accepted: ${e.message || e}`);
      } finally {
        tensorType.delete();
        req.delete();
      }
      const ptr = buf.lock(wasm.LiteRtTensorBufferLockMode.WRITE);
      try {
        wasm.HEAPU8.set(got.bytes, ptr);
      } finally {
        buf.unlock();
      }
      inputBuffers.push(buf);
    }

    const invoke = async () => {
      const outs = await compiled.run(0, inputBuffers);
      return outs;
    };
    let outputs;
    try {
      outputs = await invoke();
    } catch (e) {
      fail(`LiteRT failed to run ${modelPath}: ${e.message || e}`);
    }
    for (const o of outputs) toDelete.push(o);
    const t2 = process.hrtime.bigint();
    checkLog('inference');

    if (outputs.length !== outputNames.length) fail(`LiteRT returned ${outputs.length} outputs, the signature has ${outputNames.length}`);
    fs.mkdirSync(outDir, { recursive: true });
    info.outputs = [];
    for (let i = 0; i < outputs.length; i++) {
      const t = outputs[i].tensorType();
      const d = describeType(t);
      const nbytes = t.bytes();
      t.delete();
      if (!d.dtype) fail(`output ${i} (${outputNames[i]}) has element type ${d.typeName}, which .npy cannot hold`);
      const ptr = outputs[i].lock(wasm.LiteRtTensorBufferLockMode.READ);
      let data;
      try {
        data = Buffer.from(wasm.HEAPU8.subarray(ptr, ptr + nbytes));
      } finally {
        outputs[i].unlock();
      }
      writeNpy(path.join(outDir, `output_${i}.npy`), d.dtype, d.shape, data);
      info.outputs.push({ name: outputNames[i], dtype: d.dtype, shape: d.shape, file: `output_${i}.npy` });
    }

    if (opts.time > 0) {
      const times = [];
      for (let k = 0; k < opts.time; k++) {
        const s = process.hrtime.bigint();
        const outs = await invoke();
        times.push(Number(process.hrtime.bigint() - s) / 1e3);
        for (const o of outs) o.delete();
      }
      checkLog('timed runs');
      info.time_runs = opts.time;
      info.median_us = median(times);
      process.stdout.write(`median_us ${info.median_us.toFixed(1)} runs ${opts.time} model ${modelPath}\n`);
    }

    info.fully_accelerated = compiled.isFullyAccelerated();
    info.delegation = delegateSummary(log.lines.slice(logStart));
    info.xnnpack_delegate_logged = log.lines.slice(logStart).some((l) => /Created TensorFlow Lite XNNPACK delegate/.test(l.line));
    info.load_compile_ms = Number(t1 - t0) / 1e6;
    info.first_run_ms = Number(t2 - t1) / 1e6;
    info.log = log.lines.slice(logStart).map((l) => l.line);
    fs.writeFileSync(path.join(outDir, 'run_info.json'), JSON.stringify(info, null, 1) + '\n');
    return info;
  } finally {
    for (const o of toDelete.reverse()) {
      try {
        o.delete();
      } catch (e) {
        /* already gone */
      }
    }
    if (modelPtr) wasm._free(modelPtr);
  }
}

function parseJobs(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read jobs file ${file}: ${e.message}`);
  }
  const jobs = [];
  text.split('\n').forEach((raw, n) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const f = line.split(/\s+/);
    if (f.length < 2) throw new UsageError(`${file}:${n + 1}: need "model out_dir [inputs...]"`);
    jobs.push({ lineNo: n + 1, model: f[0], outDir: f[1], inputs: f.slice(2) });
  });
  return jobs;
}

function summary(info) {
  // LiteRT.js 2.5 does not log TFLite's "Replacing N out of M node(s) with delegate" line (and
  // logs "Created TensorFlow Lite XNNPACK delegate" only for the first model of a process), so
  // which nodes XNNPACK took is not known from the log: see README.md for how to tell.
  const d = info.delegation.length
    ? info.delegation.map((r) => `${r.delegate} took ${r.nodes}/${r.of} nodes`).join('; ')
    : 'XNNPACK coverage not logged';
  return `${info.model}: ok, ${info.wasm_build}, ${d}, load+compile ${info.load_compile_ms.toFixed(1)} ms, first run ${info.first_run_ms.toFixed(1)} ms`;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`run_tflite: ${e.message}\n`);
    return 2;
  }
  log.echo = opts.echo;
  let rt;
  try {
    rt = await loadLiteRt(opts.build);
  } catch (e) {
    process.stderr.write(`run_tflite: could not load LiteRT.js: ${e.stack || e}\n`);
    const errs = findLogErrors(log.lines);
    if (errs.length) process.stderr.write(`  ${errs.join('\n  ')}\n`);
    return 1;
  }
  const jobs = opts.batch
    ? (() => {
      try {
        return parseJobs(opts.batch);
      } catch (e) {
        process.stderr.write(`run_tflite: ${e.message}\n`);
        return null;
      }
    })()
    : [{ lineNo: 0, model: opts.positional[0], outDir: opts.positional[1], inputs: opts.positional.slice(2) }];
  if (!jobs) return 2;
  let status = 0;
  for (const job of jobs) {
    const where = opts.batch ? `${opts.batch}:${job.lineNo}: ` : '';
    try {
      const info = await runJob(rt, opts, job.model, job.outDir, job.inputs);
      process.stderr.write(`run_tflite: ${where}${summary(info)}\n`);
    } catch (e) {
      const code = e instanceof UsageError ? 2 : 1;
      status = Math.max(status, code);
      process.stderr.write(`run_tflite: ${where}FAILED ${job.model}: ${e instanceof UsageError ? e.message : e.message || e}\n`);
      if (!(e instanceof UsageError) && !e.info && e.stack) process.stderr.write(`${e.stack}\n`);
    }
  }
  if (opts.batch) process.stderr.write(`run_tflite: ${jobs.length} job(s), ${status === 0 ? 'all ok' : 'some FAILED'}\n`);
  return status;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`run_tflite: internal error: ${e.stack || e}\n`);
    process.exit(1);
  },
);
