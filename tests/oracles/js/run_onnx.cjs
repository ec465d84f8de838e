#!/usr/bin/env node
'use strict';
// Runs an .onnx model with onnxruntime-node (native ONNX Runtime, CPU execution provider).
//
//   node run_onnx.cjs [options] model.onnx out_dir in0.npy [in1.npy ...]
//   node run_onnx.cjs [options] --batch jobs.txt
//
// Inputs are .npy files, one per graph input in the session's input order (initializers that
// are also listed as graph inputs are not counted by ORT), each of the input's dtype and shape.
// Each output i is written as out_dir/output_<i>.npy, out_dir/names.txt maps "<i> <onnx output
// name>" (one a line), and out_dir/run_info.json records versions, options, names, dtypes,
// shapes and timings.
//
// Options (before or after the positional arguments):
//   --opt all|extended|basic|layout|disabled   graph optimization level (default all, ORT's own)
//   --threads N    intra-op threads (default 1); inter-op threads are 1, execution sequential
//   --time N       after the first (warm-up) run, run N more times and print
//                  "median_us <us> runs <N> model <path>" on stdout
//   --batch jobs.txt  one job a line: "model.onnx out_dir in0.npy ..." (whitespace-separated,
//                  '#' comments, paths relative to the current directory); options apply to all
//                  jobs; a failing job is reported and the others still run
//
// dtypes: int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64,
// bool (whatever ORT takes; float16 is passed as raw 16-bit words).
// Exit status: 0 success; 1 ORT failed to load / run a model; 2 bad usage or input files.

const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('./npy.cjs');

class UsageError extends Error {}

const OPT_LEVELS = ['all', 'extended', 'basic', 'layout', 'disabled'];
// ORT tensor types <-> .npy dtype names. ORT's 'bool' tensors hold one byte per element.
const ORT_TYPES = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64',
  'float16', 'float32', 'float64', 'bool']);
// ORT's type strings in session metadata, e.g. 'tensor(int8)' or 'int8'.
function metaType(t) {
  if (t === undefined || t === null) return null;
  const m = /^tensor\((\w+)\)$/.exec(String(t));
  const name = m ? m[1] : String(t);
  return { float: 'float32', double: 'float64' }[name] || name;
}

function usage(message) {
  const text = 'usage: node run_onnx.cjs [--opt all|disabled|basic|extended|layout] [--threads N] [--time N] model.onnx out_dir in0.npy [in1.npy ...]\n' +
    '       node run_onnx.cjs [options] --batch jobs.txt   (each line: model.onnx out_dir in0.npy ...)';
  throw new UsageError(message ? `${message}\n${text}` : text);
}

function parseArgs(argv) {
  const opts = { opt: 'all', threads: 1, time: 0, batch: null, positional: [] };
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
    if (a === '--opt') {
      opts.opt = value();
      if (!OPT_LEVELS.includes(opts.opt)) usage(`--opt must be one of ${OPT_LEVELS.join(', ')}`);
    } else if (a === '--threads') opts.threads = intValue(1);
    else if (a === '--time') opts.time = intValue(0);
    else if (a === '--batch') opts.batch = value();
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else opts.positional.push(a);
  }
  if (opts.batch && opts.positional.length) usage('--batch takes no model arguments');
  if (!opts.batch && opts.positional.length < 2) usage();
  return opts;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function toOrtTensor(ort, npy) {
  if (!ORT_TYPES.has(npy.dtype)) throw new UsageError(`dtype ${npy.dtype} is not supported by ORT's JS API`);
  const dims = npy.shape;
  const b = npy.bytes;
  let data;
  switch (npy.dtype) {
    case 'float16': data = new Uint16Array(b.buffer, b.byteOffset, b.length / 2); break;
    case 'bool': data = new Uint8Array(b.buffer, b.byteOffset, b.length); break;
    default: data = npy.data;
  }
  return new ort.Tensor(npy.dtype, data, dims);
}

function tensorBytes(t) {
  const d = t.data;
  if (!ArrayBuffer.isView(d)) throw new Error(`output of type ${t.type} has no numeric data`);
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

async function runJob(ort, opts, modelPath, outDir, inputPaths) {
  const info = {
    runner: 'run_onnx.cjs', runtime: `onnxruntime-node ${ort.env.versions.node}`,
    model: modelPath, execution_provider: 'cpu', graph_optimization_level: opts.opt,
    intra_op_num_threads: opts.threads,
  };
  if (!fs.existsSync(modelPath)) throw new UsageError(`cannot read model ${modelPath}: no such file`);
  const inputs = inputPaths.map((p) => {
    try {
      return readNpy(p);
    } catch (e) {
      throw new UsageError(`cannot read input ${p}: ${e.message}`);
    }
  });
  const t0 = process.hrtime.bigint();
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: opts.opt,
      intraOpNumThreads: opts.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      logSeverityLevel: 3, // errors only; failures come back as exceptions anyway
    });
  } catch (e) {
    throw new Error(`ORT could not load ${modelPath}: ${e.message || e}`);
  }
  try {
    const t1 = process.hrtime.bigint();
    const inNames = session.inputNames;
    const outNames = session.outputNames;
    const inMeta = session.inputMetadata || [];
    info.inputs = inNames.map((name, i) => {
      const m = inMeta[i] || {};
      return { name, dtype: metaType(m.type), shape: m.shape || null };
    });
    if (inputs.length !== inNames.length) {
      throw new UsageError(`${modelPath} has ${inNames.length} input(s) (${inNames.join(', ')}), got ${inputs.length} .npy file(s)`);
    }
    const feeds = {};
    inputs.forEach((npy, i) => {
      const want = info.inputs[i];
      if (want.dtype && want.dtype !== npy.dtype) {
        throw new UsageError(`input ${i} (${want.name}): model wants ${want.dtype}, ${inputPaths[i]} is ${npy.dtype}`);
      }
      if (Array.isArray(want.shape)) {
        const ok = want.shape.length === npy.shape.length &&
          want.shape.every((d, k) => typeof d !== 'number' || d < 0 || d === npy.shape[k]);
        if (!ok) throw new UsageError(`input ${i} (${want.name}): model wants shape ${JSON.stringify(want.shape)}, ${inputPaths[i]} has ${JSON.stringify(npy.shape)}`);
      }
      feeds[want.name] = toOrtTensor(ort, npy);
    });
    let results;
    try {
      results = await session.run(feeds);
    } catch (e) {
      throw new Error(`ORT failed to run ${modelPath}: ${e.message || e}`);
    }
    const t2 = process.hrtime.bigint();
    fs.mkdirSync(outDir, { recursive: true });
    info.outputs = [];
    const names = [];
    outNames.forEach((name, i) => {
      const t = results[name];
      if (!ORT_TYPES.has(t.type)) throw new Error(`output ${i} (${name}) has type ${t.type}, which .npy cannot hold here`);
      const shape = Array.from(t.dims, Number);
      writeNpy(path.join(outDir, `output_${i}.npy`), t.type, shape, tensorBytes(t));
      info.outputs.push({ name, dtype: t.type, shape, file: `output_${i}.npy` });
      names.push(`${i} ${name}`);
    });
    fs.writeFileSync(path.join(outDir, 'names.txt'), names.join('\n') + '\n');
    for (const t of Object.values(results)) t.dispose?.();

    if (opts.time > 0) {
      const times = [];
      for (let k = 0; k < opts.time; k++) {
        const s = process.hrtime.bigint();
        const r = await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - s) / 1e3);
        for (const t of Object.values(r)) t.dispose?.();
      }
      info.time_runs = opts.time;
      info.median_us = median(times);
      process.stdout.write(`median_us ${info.median_us.toFixed(1)} runs ${opts.time} model ${modelPath}\n`);
    }
    info.load_ms = Number(t1 - t0) / 1e6;
    info.first_run_ms = Number(t2 - t1) / 1e6;
    fs.writeFileSync(path.join(outDir, 'run_info.json'), JSON.stringify(info, null, 1) + '\n');
    return info;
  } finally {
    await session.release();
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

async function main() {
  let opts;
  let jobs;
  try {
    opts = parseArgs(process.argv.slice(2));
    jobs = opts.batch
      ? parseJobs(opts.batch)
      : [{ lineNo: 0, model: opts.positional[0], outDir: opts.positional[1], inputs: opts.positional.slice(2) }];
  } catch (e) {
    process.stderr.write(`run_onnx: ${e.message}\n`);
    return 2;
  }
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`run_onnx: cannot load onnxruntime-node (run 'npm ci --ignore-scripts' in ${__dirname}): ${e.message}\n`);
    return 1;
  }
  let status = 0;
  for (const job of jobs) {
    const where = opts.batch ? `${opts.batch}:${job.lineNo}: ` : '';
    try {
      const info = await runJob(ort, opts, job.model, job.outDir, job.inputs);
      process.stderr.write(`run_onnx: ${where}${info.model}: ok, opt ${opts.opt}, ${opts.threads} thread(s), load ${info.load_ms.toFixed(1)} ms, first run ${info.first_run_ms.toFixed(1)} ms\n`);
    } catch (e) {
      status = Math.max(status, e instanceof UsageError ? 2 : 1);
      process.stderr.write(`run_onnx: ${where}FAILED ${job.model}: ${e.message || e}\n`);
    }
  }
  if (opts.batch) process.stderr.write(`run_onnx: ${jobs.length} job(s), ${status === 0 ? 'all ok' : 'some FAILED'}\n`);
  return status;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`run_onnx: internal error: ${e.stack || e}\n`);
    process.exit(1);
  },
);
