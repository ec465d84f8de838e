'use strict';
// Loads LiteRT.js (@litertjs/core, TFLite compiled to WebAssembly) in plain Node.js and captures
// everything it logs.
//
// LiteRT.js is written for browsers and web workers: @litertjs/wasm-utils runs the Emscripten
// loader script (wasm/litert_wasm_*_internal.js) with importScripts() when that exists, else by
// appending a <script> tag to `document` (which fails in Node with "document is not defined"),
// and then reads the factory from self.ModuleFactory. Here `self` is the global object and
// importScripts() evaluates the loader as CommonJS (it then detects Node and reads the .wasm
// file with fs). navigator is given a hardwareConcurrency (the threaded build sizes its worker
// pool from it) and no `gpu`, so LiteRT.js does not try to create a WebGPU device.
//
// Logging: the Wasm module prints through console.log / console.error / console.warn (bound when
// the loader script runs). Those are replaced before loading, so every line LiteRT or TFLite
// prints lands in `log.lines` (and on stderr when `log.echo` is set). LiteRT.js does not turn a
// kernel's prepare / invoke failure into an exception, so callers must inspect these lines
// (see findLogErrors).

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL, fileURLToPath } = require('url');

const PKG_DIR = path.dirname(require.resolve('@litertjs/core/package.json'));
const WASM_DIR = path.join(PKG_DIR, 'wasm');
const VERSION = JSON.parse(fs.readFileSync(path.join(PKG_DIR, 'package.json'), 'utf8')).version;

// Which Emscripten build to load. 'auto' lets LiteRT.js choose: the relaxed-SIMD build
// (litert_wasm_internal) when the engine has relaxed SIMD, else the compat (plain SIMD128) build.
// Node 20's V8 has relaxed SIMD only behind --experimental-wasm-relaxed-simd, so by default
// Node 20 loads the compat build.
const BUILDS = {
  compat: 'litert_wasm_compat_internal.js',
  relaxed: 'litert_wasm_internal.js',
  threaded: 'litert_wasm_threaded_internal.js',
  jspi: 'litert_wasm_jspi_internal.js',
};

const log = { lines: [], echo: false };
let loadedScript = null;

function captureConsole() {
  const sink = (level) => (...args) => {
    const text = args
      .map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.stack || String(a) : JSON.stringify(a)))
      .join(' ')
      .replace(/%c/g, '');
    // One entry per call (a multi-line message, e.g. with a stack, stays one entry).
    const line = text.replace(/\n+$/, '');
    if (line.length === 0) return;
    log.lines.push({ level, line });
    if (log.echo) process.stderr.write(`[litert ${level}] ${line}\n`);
  };
  console.log = sink('log');
  console.info = sink('info');
  console.debug = sink('debug');
  console.warn = sink('warn');
  console.error = sink('error');
}

function installBrowserShims() {
  globalThis.self = globalThis;
  if (typeof globalThis.navigator === 'undefined') {
    globalThis.navigator = { hardwareConcurrency: os.cpus().length, userAgent: 'node' };
  }
  globalThis.importScripts = (...urls) => {
    for (const url of urls) {
      const file = String(url).startsWith('file:') ? fileURLToPath(url) : String(url);
      const source = fs.readFileSync(file, 'utf8');
      const mod = { exports: {} };
      // The loader is a UMD script: as CommonJS it sets module.exports = ModuleFactory.
      const fn = new Function('require', 'module', 'exports', '__filename', '__dirname', source);
      fn(require, mod, mod.exports, file, path.dirname(file));
      const factory = mod.exports;
      const extra = {
        // Route the module's stdout / stderr through the capture (the threaded build would
        // otherwise write to fd 2 directly, from whichever thread prints).
        print: (...a) => console.log(...a),
        printErr: (...a) => console.error(...a),
      };
      if (path.basename(file) === BUILDS.threaded) {
        // pthread workers must start from a CommonJS entry (see litert_pthread_worker.cjs).
        extra.mainScriptUrlOrBlob = path.join(__dirname, 'litert_pthread_worker.cjs');
      }
      globalThis.ModuleFactory = (arg = {}) => factory(Object.assign(arg, extra));
      loadedScript = path.basename(file);
    }
  };
}

let litertPromise = null;

// Loads the Wasm module once per process. build: 'auto' | 'compat' | 'relaxed' | 'threaded' | 'jspi'.
async function loadLiteRt(build = 'auto') {
  if (litertPromise) return litertPromise;
  captureConsole();
  installBrowserShims();
  litertPromise = (async () => {
    const api = await import(pathToFileURL(path.join(PKG_DIR, 'dist', 'index.js')).href);
    let where = WASM_DIR + path.sep;
    let options;
    if (build === 'threaded') options = { threads: true };
    else if (build === 'jspi') options = { jspi: true };
    else if (build !== 'auto') {
      if (!BUILDS[build]) throw new Error(`unknown LiteRT.js build '${build}' (auto, ${Object.keys(BUILDS).join(', ')})`);
      where = path.join(WASM_DIR, BUILDS[build]);
    }
    const liteRt = await api.loadLiteRt(where, options);
    return { api, liteRt, wasm: liteRt.liteRtWasm, script: loadedScript, version: VERSION };
  })();
  return litertPromise;
}

// Log lines that mean the model did not load, prepare or run correctly. LiteRT prints
// "<LEVEL>: [file:line] message"; TFLite's error reporter lines (kernel prepare / eval failures)
// come through the same channel at ERROR level.
const BENIGN = [
  /NPU accelerator could not be loaded/, // no NPU in the Wasm build: always printed
  /^Failed to create default WebGPU device/, // Node has no WebGPU: printed once at load
];
const BAD = /failed|failure|error|not supported|unsupported|didn't find|unresolved|abort|invalid|mismatch|must be|expected/i;

function findLogErrors(lines) {
  const bad = [];
  for (const { level, line } of lines) {
    if (BENIGN.some((re) => re.test(line))) continue;
    const m = /^(VERBOSE|DEBUG|INFO|WARNING|ERROR|FATAL)\b/.exec(line);
    const severity = m ? m[1] : null;
    if (severity === 'ERROR' || severity === 'FATAL') bad.push(line);
    else if (severity === 'INFO' || severity === 'VERBOSE' || severity === 'DEBUG') continue;
    else if (BAD.test(line) || level === 'error') bad.push(line);
  }
  return bad;
}

module.exports = { loadLiteRt, log, findLogErrors, WASM_DIR, VERSION };
