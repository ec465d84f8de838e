'use strict';
// Minimal .npy (NumPy array file) reader and writer for the oracle runners.
// Reads format versions 1.0, 2.0 and 3.0, C order only; writes version 1.0 (2.0 when the header
// does not fit in 64 KiB). Little-endian data only (what np.save writes on x86 / ARM).

const fs = require('fs');

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // "\x93NUMPY"

// numpy dtype name -> descr ('|' for single-byte types, '<' little-endian), element size,
// TypedArray constructor (null: no JS TypedArray; the raw bytes are kept).
const DTYPES = {
  bool: { descr: '|b1', size: 1, ctor: Uint8Array },
  int8: { descr: '|i1', size: 1, ctor: Int8Array },
  uint8: { descr: '|u1', size: 1, ctor: Uint8Array },
  int16: { descr: '<i2', size: 2, ctor: Int16Array },
  uint16: { descr: '<u2', size: 2, ctor: Uint16Array },
  int32: { descr: '<i4', size: 4, ctor: Int32Array },
  uint32: { descr: '<u4', size: 4, ctor: Uint32Array },
  int64: { descr: '<i8', size: 8, ctor: BigInt64Array },
  uint64: { descr: '<u8', size: 8, ctor: BigUint64Array },
  float16: { descr: '<f2', size: 2, ctor: null },
  float32: { descr: '<f4', size: 4, ctor: Float32Array },
  float64: { descr: '<f8', size: 8, ctor: Float64Array },
};

function dtypeFromDescr(descr) {
  // Accept '<' and '|' (and '=' on this little-endian host) for every type; reject big-endian.
  const m = /^([<|=>])([bBiuf])(\d+)$/.exec(descr);
  if (!m) throw new Error(`unsupported .npy dtype '${descr}'`);
  const [, order, kind, bytes] = m;
  if (order === '>' && bytes !== '1') throw new Error(`big-endian .npy dtype '${descr}' is not supported`);
  const name = { b: 'bool', i: 'int', u: 'uint', f: 'float' }[kind] + (kind === 'b' ? '' : String(8 * Number(bytes)));
  if (!(name in DTYPES) || (kind === 'b' && bytes !== '1')) throw new Error(`unsupported .npy dtype '${descr}'`);
  return name;
}

// Parses the Python-literal header dict written by numpy, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 8, 8, 8), }
function parseHeader(text) {
  const descr = /'descr'\s*:\s*'([^']+)'/.exec(text);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) throw new Error(`malformed .npy header: ${text.trim()}`);
  if (fortran[1] === 'True') throw new Error('Fortran-order .npy files are not supported (save a C-contiguous array)');
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  if (dims.some((d) => !Number.isInteger(d) || d < 0)) throw new Error(`bad .npy shape (${shape[1]})`);
  return { dtype: dtypeFromDescr(descr[1]), shape: dims };
}

// Returns { dtype, shape, bytes (Buffer, exactly the data), data (TypedArray or null) }.
function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  let headerLen;
  let offset;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    offset = 10;
  } else if (major === 2 || major === 3) {
    headerLen = buf.readUInt32LE(8);
    offset = 12;
  } else {
    throw new Error(`${path}: unsupported .npy version ${major}.${buf[7]}`);
  }
  const header = buf.subarray(offset, offset + headerLen).toString(major === 3 ? 'utf8' : 'latin1');
  let parsed;
  try {
    parsed = parseHeader(header);
  } catch (e) {
    throw new Error(`${path}: ${e.message}`);
  }
  const { dtype, shape } = parsed;
  const count = shape.reduce((a, b) => a * b, 1);
  const nbytes = count * DTYPES[dtype].size;
  const start = offset + headerLen;
  if (buf.length - start !== nbytes) {
    throw new Error(`${path}: ${buf.length - start} data bytes, expected ${nbytes} for ${dtype} ${JSON.stringify(shape)}`);
  }
  const bytes = Buffer.from(buf.subarray(start, start + nbytes)); // own, aligned copy
  const ctor = DTYPES[dtype].ctor;
  const data = ctor ? new ctor(bytes.buffer, bytes.byteOffset, count) : null;
  return { dtype, shape, bytes, data };
}

// Writes raw little-endian bytes (Buffer / Uint8Array / TypedArray) as a .npy of dtype and shape.
function writeNpy(path, dtype, shape, raw) {
  const info = DTYPES[dtype];
  if (!info) throw new Error(`cannot write .npy dtype '${dtype}'`);
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const count = shape.reduce((a, b) => a * b, 1);
  if (bytes.length !== count * info.size) {
    throw new Error(`writeNpy ${path}: ${bytes.length} bytes for ${dtype} ${JSON.stringify(shape)}`);
  }
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '${info.descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  let pre = 10;
  let total = pre + dict.length + 1;
  let major = 1;
  if (total + 63 > 0xffff + 10) {
    major = 2;
    pre = 12;
    total = pre + dict.length + 1;
  }
  dict += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(pre);
  MAGIC.copy(head, 0);
  head[6] = major;
  head[7] = 0;
  if (major === 1) head.writeUInt16LE(dict.length, 8);
  else head.writeUInt32LE(dict.length, 8);
  fs.writeFileSync(path, Buffer.concat([head, Buffer.from(dict, 'latin1'), bytes]));
}

module.exports = { readNpy, writeNpy, DTYPES };
