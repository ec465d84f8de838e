// Compares LiteRT.js's ADD / SUB / MUL outputs with include/qparity/reference/elementwise.h.
//
//   compare_elementwise INPUT_DIR RUN_DIR [--csv FILE]
//
// INPUT_DIR holds manifest.txt and <case>_qa.npy / _qb.npy (make_models.py inputs); RUN_DIR holds
// one directory per model, <case>__<path>/output_{0,1,2,3}.npy (run_tflite.cjs: y (float32),
// y_q, a_q, b_q). For every model it checks that a_q / b_q are the intended integers and that
// DEQUANTIZE's y is (y_q - zo) so, then counts, for every arithmetic of the header, the elements of
// y_q it does not reproduce. Prints one line per model, then a table per (op, type, path) x
// arithmetic with elements and mismatches. Exit status 1 if an input check fails or the expected
// arithmetic of a path (xnnpack -> xnnpack-wasm, tflite -> tflite-double) misses an element.
//
// Build (header-only, no dependencies): g++ -std=c++17 -O2 -I include compare_elementwise.cc
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "qparity/reference/elementwise.h"

using namespace qparity;
using namespace qparity::reference;

namespace {

struct Npy {
  std::string descr;
  std::vector<std::size_t> shape;
  std::vector<char> data;
  std::size_t count() const {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
  }
};

bool read_npy(const std::string& path, Npy* out, std::string* err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) { *err = "cannot open " + path; return false; }
  char magic[8];
  f.read(magic, 8);
  if (!f || std::memcmp(magic, "\x93NUMPY", 6) != 0) { *err = path + ": not an .npy file"; return false; }
  std::size_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char l[2];
    f.read(reinterpret_cast<char*>(l), 2);
    header_len = l[0] | (l[1] << 8);
  } else {
    unsigned char l[4];
    f.read(reinterpret_cast<char*>(l), 4);
    header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (static_cast<std::size_t>(l[3]) << 24);
  }
  std::string header(header_len, '\0');
  f.read(&header[0], static_cast<std::streamsize>(header_len));
  const auto field = [&](const char* key) {
    const std::size_t k = header.find(key);
    return k == std::string::npos ? std::string() : header.substr(k + std::strlen(key));
  };
  std::string d = field("'descr':");
  const std::size_t q1 = d.find('\''), q2 = d.find('\'', q1 + 1);
  out->descr = d.substr(q1 + 1, q2 - q1 - 1);
  if (field("'fortran_order':").find("False") > 2) { *err = path + ": fortran order"; return false; }
  std::string s = field("'shape':");
  s = s.substr(s.find('(') + 1, s.find(')') - s.find('(') - 1);
  out->shape.clear();
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    if (tok.find_first_of("0123456789") != std::string::npos) out->shape.push_back(std::stoul(tok));
  }
  std::size_t item = out->descr == "<f4" ? 4 : out->descr == "<i2" ? 2 : 1;
  out->data.resize(out->count() * item);
  f.read(out->data.data(), static_cast<std::streamsize>(out->data.size()));
  if (!f) { *err = path + ": short data"; return false; }
  return true;
}

std::vector<std::int32_t> ints(const Npy& a) {
  std::vector<std::int32_t> v(a.count());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (a.descr == "|i1") v[i] = static_cast<std::int8_t>(a.data[i]);
    else if (a.descr == "|u1") v[i] = static_cast<std::uint8_t>(a.data[i]);
    else if (a.descr == "<i2") { std::int16_t x; std::memcpy(&x, &a.data[2 * i], 2); v[i] = x; }
    else { std::fprintf(stderr, "unexpected dtype %s\n", a.descr.c_str()); std::exit(2); }
  }
  return v;
}

std::vector<float> floats(const Npy& a) {
  std::vector<float> v(a.count());
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
  return v;
}

template <class T>
std::vector<std::int32_t> run_typed(const ElementwiseParams& p, const std::vector<std::size_t>& s1,
                                    const std::vector<std::int32_t>& a,
                                    const std::vector<std::size_t>& s2,
                                    const std::vector<std::int32_t>& b) {
  std::vector<T> ta(a.begin(), a.end()), tb(b.begin(), b.end());
  const std::vector<T> y = elementwise(p, s1, ta, s2, tb);
  return std::vector<std::int32_t>(y.begin(), y.end());
}

struct Variant {
  std::string name;
  ElementwiseArithmetic arithmetic;
  NpuElementwiseOptions npu;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (ElementwiseArithmetic a : kAllElementwiseArithmetics) {
    if (a == ElementwiseArithmetic::kNpuSingleRounding) continue;
    v.push_back({to_string(a), a, {}});
  }
  v.push_back({"npu-he-q15", ElementwiseArithmetic::kNpuSingleRounding,
               {TieRule::kHalfToEven, NpuMultiplierPrecision::kQ15}});
  v.push_back({"npu-hu-q31", ElementwiseArithmetic::kNpuSingleRounding,
               {TieRule::kHalfUp, NpuMultiplierPrecision::kQ31}});
  return v;
}

Activation activation_from(const std::string& s) {
  if (s == "NONE") return Activation::kNone;
  if (s == "RELU") return Activation::kRelu;
  if (s == "RELU6") return Activation::kRelu6;
  if (s == "RELU_N1_TO_1") return Activation::kReluN1To1;
  std::fprintf(stderr, "unknown activation %s\n", s.c_str());
  std::exit(2);
}

struct Tally {
  long elements = 0;
  std::map<std::string, std::pair<long, long>> mismatches;  // variant -> (mismatches, elements)
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: compare_elementwise INPUT_DIR RUN_DIR [--csv FILE]\n");
    return 2;
  }
  const std::string in_dir = argv[1], run_dir = argv[2];
  std::string csv_path;
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--csv") csv_path = argv[i + 1];
  }
  std::ifstream manifest(in_dir + "/manifest.txt");
  if (!manifest) {
    std::fprintf(stderr, "cannot open %s/manifest.txt\n", in_dir.c_str());
    return 2;
  }
  const std::vector<Variant> vs = variants();
  std::map<std::string, Tally> table;  // key "op type path"
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv) {
    std::fprintf(csv, "case,path,op,type,elements");
    for (const Variant& v : vs) std::fprintf(csv, ",%s", v.name.c_str());
    std::fprintf(csv, "\n");
  }
  bool failed = false;
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string name, path, op_s, type_s, act_s, s1h, s2h, soh;
    int z1, z2, zo;
    is >> name >> path >> op_s >> type_s >> act_s >> s1h >> z1 >> s2h >> z2 >> soh >> zo;
    std::vector<std::size_t> sh1, sh2;
    std::size_t r;
    is >> r;
    sh1.resize(r);
    for (auto& d : sh1) is >> d;
    is >> r;
    sh2.resize(r);
    for (auto& d : sh2) is >> d;
    const float s1 = static_cast<float>(std::strtod(s1h.c_str(), nullptr));
    const float s2 = static_cast<float>(std::strtod(s2h.c_str(), nullptr));
    const float so = static_cast<float>(std::strtod(soh.c_str(), nullptr));
    const ElementwiseOp op = op_s == "ADD" ? ElementwiseOp::kAdd
                             : op_s == "SUB" ? ElementwiseOp::kSub : ElementwiseOp::kMul;
    const OutputType type = type_s == "int8" ? OutputType::kInt8
                            : type_s == "uint8" ? OutputType::kUint8 : OutputType::kInt16;
    const Activation act = activation_from(act_s);

    std::string err;
    Npy qa_ref, qb_ref, y_f, y_q, a_q, b_q;
    const std::string out = run_dir + "/" + name + "__" + path;
    if (!read_npy(in_dir + "/" + name + "_qa.npy", &qa_ref, &err) ||
        !read_npy(in_dir + "/" + name + "_qb.npy", &qb_ref, &err) ||
        !read_npy(out + "/output_0.npy", &y_f, &err) || !read_npy(out + "/output_1.npy", &y_q, &err) ||
        !read_npy(out + "/output_2.npy", &a_q, &err) || !read_npy(out + "/output_3.npy", &b_q, &err)) {
      std::printf("%-34s %-7s MISSING: %s\n", name.c_str(), path.c_str(), err.c_str());
      failed = true;
      continue;
    }
    const std::vector<std::int32_t> a = ints(qa_ref), b = ints(qb_ref), got = ints(y_q);
    bool inputs_ok = ints(a_q) == a && ints(b_q) == b;
    // DEQUANTIZE consistency: y = (y_q - zo) so, within float rounding.
    bool dequant_ok = true;
    const std::vector<float> yf = floats(y_f);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double expect = static_cast<double>(got[i] - zo) * so;
      if (std::fabs(yf[i] - expect) > 1e-6 * std::fabs(expect) + 1e-30) dequant_ok = false;
    }
    const std::string key = op_s + " " + type_s + " " + path;
    Tally& t = table[key];
    t.elements += static_cast<long>(got.size());
    std::printf("%-34s %-7s n=%-6zu inputs %s dequant %s |", name.c_str(), path.c_str(), got.size(),
                inputs_ok ? "ok" : "BAD", dequant_ok ? "ok" : "BAD");
    if (csv) std::fprintf(csv, "%s,%s,%s,%s,%zu", name.c_str(), path.c_str(), op_s.c_str(),
                          type_s.c_str(), got.size());
    if (!inputs_ok || !dequant_ok) failed = true;
    const std::string expected = path == "xnnpack" ? "xnnpack-wasm" : "tflite-double";
    for (const Variant& v : vs) {
      long miss = -1;
      try {
        const ElementwiseParams p = derive_elementwise_params(op, v.arithmetic, type, {s1, z1}, {s2, z2},
                                                              {so, zo}, act, v.npu);
        std::vector<std::int32_t> want;
        if (type == OutputType::kInt8) want = run_typed<std::int8_t>(p, sh1, a, sh2, b);
        else if (type == OutputType::kUint8) want = run_typed<std::uint8_t>(p, sh1, a, sh2, b);
        else want = run_typed<std::int16_t>(p, sh1, a, sh2, b);
        miss = 0;
        for (std::size_t i = 0; i < got.size(); ++i) miss += want[i] != got[i];
        t.mismatches[v.name].first += miss;
        t.mismatches[v.name].second += static_cast<long>(got.size());
      } catch (const InvalidArgument&) {
        // not applicable to this case (type, op or scale range)
      }
      std::printf(" %s=%s", v.name.c_str(), miss < 0 ? "n/a" : std::to_string(miss).c_str());
      if (csv) std::fprintf(csv, ",%s", miss < 0 ? "" : std::to_string(miss).c_str());
      if (v.name == expected && miss != 0) failed = true;
    }
    std::printf("\n");
    if (csv) std::fprintf(csv, "\n");
  }
  if (csv) std::fclose(csv);

  std::printf("\nmismatching elements per (op, type, path) x arithmetic (n/a: not applicable; "
              "m/n: m of the n elements of the cases where it applies)\n");
  std::printf("%-22s %8s", "op type path", "elements");
  for (const Variant& v : vs) std::printf(" %s", v.name.c_str());
  std::printf("\n");
  for (const auto& kv : table) {
    std::printf("%-22s %8ld", kv.first.c_str(), kv.second.elements);
    for (const Variant& v : vs) {
      const auto it = kv.second.mismatches.find(v.name);
      std::string cell = "n/a";
      if (it != kv.second.mismatches.end()) {
        cell = std::to_string(it->second.first);
        if (it->second.second != kv.second.elements) cell += "/" + std::to_string(it->second.second);
      }
      std::printf(" %*s", static_cast<int>(v.name.size()), cell.c_str());
    }
    std::printf("\n");
  }
  std::printf("\n%s\n", failed ? "FAILED (see BAD / MISSING lines, or a path's expected arithmetic missed)"
                               : "ok: xnnpack path == xnnpack-wasm and tflite path == tflite-double on every element");
  return failed ? 1 : 0;
}
