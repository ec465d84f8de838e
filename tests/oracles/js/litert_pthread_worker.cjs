'use strict';
// Entry script of a pthread worker of LiteRT.js's threaded Wasm build under Node.js.
// Emscripten starts each pthread as `new Worker(<main script>)`; the package's loader script is a
// .js file in a "type": "module" package, which Node would load as an ES module, where the
// script's CommonJS code (require, __filename) fails. litert_node.cjs points Emscripten at this
// file instead, which evaluates the same loader as CommonJS, as litert_node.cjs does on the main
// thread; the loader then sees it is a pthread (workerData 'em-pthread') and starts the thread.
const fs = require('fs');
const path = require('path');
const file = path.join(path.dirname(require.resolve('@litertjs/core/package.json')), 'wasm', 'litert_wasm_threaded_internal.js');
const mod = { exports: {} };
new Function('require', 'module', 'exports', '__filename', '__dirname', fs.readFileSync(file, 'utf8'))(
  require, mod, mod.exports, file, path.dirname(file));
