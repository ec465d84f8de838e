// PackedGemm: validation of the weight side, choice of the micro-kernel for (ISA, accumulator
// model), and packing of B into that kernel's panel format with the per-channel sums the
// compensation terms need (gemm_ukernel.h describes the formats).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/dispatch/unsupported_isa.h"
#include "kernels/gemm/packed_gemm_data.h"
#include "kernels/registry/kernel_registry.h"
#include "qparity/error.h"
#include "qparity/gemm.h"
#include "qparity/policies.h"
#include "qparity/requantize.h"

namespace qparity {
namespace internal {

namespace {

// The micro-kernels of `isa`'s own file, or an empty set. Each getter is compiled with its ISA's
// flags and may use its instructions, so it must only run when the ISA is supported (callers
// check supported_isas(); the ISAs of a parent chain are supported with it).
const UkernelSet& ukernels_of(Isa isa) {
  static const UkernelSet none{};
  const UkernelSet* s = own_kernels<GemmUkernelFamily>(isa);
  return s != nullptr ? *s : none;
}

// The ISA whose set provides the kernel for (isa, model, K): the ISA itself, else the nearest
// ancestor (isa_list.h) that has one, for the exact model one whose kernel serves this K
// (UkernelSet::exact_min_k: AMX's below 64). SSE4.1 has no GEMM kernels (it runs the portable
// ones); the VNNI and AMX paths take their pair-saturating kernel from the AVX-512BW / AVX2 set,
// because VPMADDUBSW is the instruction that model describes.
Isa kernel_source(Isa isa, bool pair_saturating, std::size_t k) {
  for (Isa i = isa;; i = parent_of(i)) {
    const UkernelSet& s = ukernels_of(i);
    if (pair_saturating ? s.pair_saturate.fn != nullptr
                        : s.exact.fn != nullptr && k >= s.exact_min_k) {
      return i;
    }
    if (i == Isa::kScalar) break;
  }
  throw InvalidArgument("qparity: no GEMM micro-kernel for this model");  // unreachable: scalar has both
}

// The main kernel of `source`'s set for the model (source: from kernel_source).
const Ukernel& kernel_of(Isa source, bool pair_saturating) {
  const UkernelSet& s = ukernels_of(source);
  return pair_saturating ? s.pair_saturate : s.exact;
}

// The few-row exact kernel for `main`: the ISA's own, else the nearest ancestor's that reads the
// same packed B (gemm_ukernel.h, shares_packed_b); none: null. AMX has none of its own: its
// tiles compute 32 rows, and a batch-1 fully connected layer (1 x 1000 x 1024, DR-AZ) ran at
// 94 GOPS on them against 227-234 on AVX-512 VNNI's 1x64 kernel (Xeon family 6 model 207).
const Ukernel* exact_narrow_for(Isa isa, const Ukernel& main) {
  for (Isa i = isa;; i = parent_of(i)) {
    const Ukernel& k = ukernels_of(i).exact_narrow;
    if (k.fn != nullptr && shares_packed_b(k.format, main.format)) return &k;
    if (i == Isa::kScalar) return nullptr;
  }
}

void validate_weights(const GemmWeights& w, RoundingCore core, AccumulatorSpec acc) {
  validate(acc);
  if (w.n == 0 || w.k == 0) {
    throw InvalidArgument("qparity: gemm weights n = " + std::to_string(w.n) + ", k = " +
                          std::to_string(w.k) + " are out of range; allowed: each >= 1");
  }
  detail::require_pointer(w.b, "b");
  detail::require_pointer(w.params, "params");
  detail::require_stride("b_row_stride", w.row_stride, w.layout == WeightLayout::kKxN ? w.n : w.k);
  if (w.zero_points != nullptr) {
    const std::size_t nz = w.zero_point_per_channel ? w.n : 1;
    for (std::size_t j = 0; j < nz; ++j) {
      detail::require_in_range("b_zero_points[j]", w.zero_points[j], -128, 127, "int8 weights");
    }
  }
  const std::size_t np = w.per_channel ? w.n : 1;
  for (std::size_t j = 0; j < np; ++j) {
    try {
      validate(core, w.params[j]);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string(e.what()) + " (params[" + std::to_string(j) + "])");
    }
  }
}

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

/// Elements between consecutive rows of B as stored (K rows of N for kKxN, N rows of K for kNxK).
std::size_t b_row_stride(const GemmWeights& w) {
  return w.row_stride ? w.row_stride : (w.layout == WeightLayout::kKxN ? w.n : w.k);
}

/// Every weight in [-64, 64] and no weight zero point: a VPMADDUBSW pair of u8 x s8 products is
/// then at most 2 * 255 * 64 = 32640 in magnitude, so the pair-saturating kernel never saturates
/// and computes the exact int32 sums. Such weights are common: ONNX Runtime's quantizer with
/// reduce_range (7-bit weights, for this very instruction) and oneDNN's halved filter without
/// VNNI (docs/architecture.md).
bool pairs_cannot_saturate(const GemmWeights& w) {
  if (w.zero_points != nullptr) {
    const std::size_t nz = w.zero_point_per_channel ? w.n : 1;
    for (std::size_t j = 0; j < nz; ++j) {
      if (w.zero_points[j] != 0) return false;
    }
  }
  const std::size_t ldb = b_row_stride(w);
  const std::size_t rows = w.layout == WeightLayout::kKxN ? w.k : w.n;
  const std::size_t cols = w.layout == WeightLayout::kKxN ? w.n : w.k;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int8_t* row = w.b + r * ldb;
    for (std::size_t c = 0; c < cols; ++c) {
      if (row[c] < -64 || row[c] > 64) return false;
    }
  }
  return true;
}

void pack_b(const GemmWeights& w, PackedGemmData& d) {
  const std::size_t ldb = b_row_stride(w);
  auto at = [&](std::size_t k, std::size_t j) -> std::int8_t {
    return w.layout == WeightLayout::kKxN ? w.b[k * ldb + j] : w.b[j * ldb + k];
  };
  d.b_packed.resize(d.panels * d.panel_stride);
  std::memset(d.b_packed.data(), 0, d.b_packed.size());
  const std::size_t G = d.group;
  for (std::size_t j = 0; j < d.n; ++j) {
    std::uint8_t* panel = d.b_packed.data() + (j / kPanelCols) * d.panel_stride;
    const std::size_t jj = j % kPanelCols;
    std::int64_t sum = 0, abs_sum = 0;
    const std::int32_t zp = d.b_zero_point[j];
    for (std::size_t k = 0; k < d.k; ++k) {
      const std::int8_t v = at(k, j);
      sum += v;
      abs_sum += std::abs(static_cast<std::int32_t>(v) - zp);
      const std::size_t slot = ((k / G) * kPanelCols + jj) * G + k % G;
      if (d.kernel.format == PackFormat::kPairs16) {
        const std::int16_t v16 = v;
        std::memcpy(panel + slot * 2, &v16, 2);
      } else {
        panel[slot] = static_cast<std::uint8_t>(v);
      }
    }
    d.col_sum[j] = sum;
    d.col_abs_sum[j] = abs_sum;
  }
}

/// The fused epilogue's plan (gemm_epilogue.h) when the plan and the requantization ISA allow it:
/// int32-folded with nothing left to apply to the raw accumulators (a per-channel weight zero
/// point and wrapN < 32 are applied by the separate pass).
void plan_epilogue(PackedGemmData& d) {
  EpiloguePlan& e = d.epilogue;
  e = EpiloguePlan{};
  const bool narrows = d.accumulator.kind == AccumulatorKind::kWrapping && d.accumulator.bits < 32;
  if (d.plan != AccumulationPlan::kFoldedInt32 || narrows ||
      (d.has_b_zero_point && d.b_zero_point_per_channel)) {
    return;
  }
  const EpilogueIsa* served = kernels_for<GemmEpilogueFamily>(d.isa);
  if (served == nullptr) return;  // no fused epilogue below avx2
  const EpilogueIsa& isa = *served;
  const std::size_t count = d.per_channel ? d.n : 1;
  const std::size_t vectors = (count + isa.lanes - 1) / isa.lanes;
  e.chan.resize(vectors * isa.vec_bytes);
  EpilogueVariant variant;
  if (!isa.build(d.core, d.params.data(), count, e.chan.data(), &e.fns, &variant)) {
    e = EpiloguePlan{};
    return;
  }
  if (isa.saturated != nullptr) e.fns_saturated = isa.saturated(variant);
  // A main kernel with a fused form (AVX-512 VNNI's, AVX2's exact and pair-saturating ones)
  // requantizes its accumulators from registers; its plan is the one just built, by the
  // same-width epilogue its ISA is served by.
  const GemmFusedKernels* fused = own_kernels<GemmFusedFamily>(d.kernel_isa);
  const UkernelSet& own = ukernels_of(d.kernel_isa);
  const auto get = fused == nullptr || fused->lanes != isa.lanes ? nullptr
                   : d.kernel.fn == own.exact.fn                 ? fused->get
                   : d.kernel.fn == own.pair_saturate.fn         ? fused->get_pair_saturate
                                                                 : nullptr;
  if (get != nullptr) {
    e.fused = get(variant, false);
    e.fused_saturated = get(variant, true);
    if (d.kernel.fn == own.exact.fn && d.one_panel.fn != nullptr &&
        fused->get_one_panel != nullptr) {
      e.fused_one_panel = fused->get_one_panel(variant, false);
      e.fused_saturated_one_panel = fused->get_one_panel(variant, true);
    }
  }
  e.lanes = isa.lanes;
  e.vec_bytes = isa.vec_bytes;
  e.per_channel = d.per_channel;
  e.enabled = true;
}

}  // namespace
}  // namespace internal

PackedGemm::PackedGemm(const GemmWeights& w, RoundingCore core, AccumulatorSpec accumulator)
    : PackedGemm(active_isa(), w, core, accumulator) {}

PackedGemm::PackedGemm(Isa isa, const GemmWeights& w, RoundingCore core, AccumulatorSpec accumulator) {
  using namespace internal;
  internal::require_supported(isa);
  validate_weights(w, core, accumulator);
  auto d = std::make_unique<PackedGemmData>();
  d->n = w.n;
  d->k = w.k;
  d->core = core;
  d->accumulator = accumulator;
  d->isa = isa;
  const AccumulatorKind kind = accumulator.kind;
  d->plan = (kind == AccumulatorKind::kInt32 || kind == AccumulatorKind::kPairSaturating ||
             (kind == AccumulatorKind::kWrapping && accumulator.bits <= 32))
                ? AccumulationPlan::kFoldedInt32
                : AccumulationPlan::kExactWide;
  bool pair_kernel = kind == AccumulatorKind::kPairSaturating;
  d->kernel_isa = kernel_source(isa, pair_kernel, w.k);
  d->kernel = kernel_of(d->kernel_isa, pair_kernel);
  // The exact int32 model, on an ISA whose exact kernel multiplies int16 pairs (AVX2, AVX-512BW:
  // VPMADDWD, 2 products per 16-bit lane), runs on the pair-saturating kernel (VPMADDUBSW, 2 per
  // 8-bit lane) when no pair can saturate: the same bits, and the instruction's limit is 1.25x
  // (ymm) / 1.4x (zmm) higher on a Zen 4 (bench/peak_bench); measured gains in
  // docs/architecture.md (Small weights on the pair kernel).
  if (kind == AccumulatorKind::kInt32 && d->kernel.format == PackFormat::kPairs16 &&
      pairs_cannot_saturate(w)) {
    const Isa pair_isa = kernel_source(isa, true, w.k);
    const Ukernel& pair = kernel_of(pair_isa, true);
    if (pair.fn != nullptr && pair.arithmetic == Arithmetic::kPairSaturate16) {
      d->kernel = pair;
      d->kernel_isa = pair_isa;
      pair_kernel = true;
    }
  }
  if (pair_kernel) {
    // The few-row pair-saturating kernel of the set the main one came from (same packing).
    const Ukernel& narrow = ukernels_of(d->kernel_isa).pair_saturate_narrow;
    if (narrow.fn != nullptr && narrow.format == d->kernel.format) d->narrow = narrow;
  } else {
    if (const Ukernel* narrow = exact_narrow_for(isa, d->kernel)) d->narrow = *narrow;
    // The one-panel kernel only stands in for the exact kernel it is a variant of.
    const UkernelSet& own = ukernels_of(d->kernel_isa);
    if (own.exact_one_panel.fn != nullptr && own.exact.fn == d->kernel.fn &&
        own.exact_one_panel.mr == d->kernel.mr && own.exact_one_panel.format == d->kernel.format &&
        own.exact_one_panel.direct_a == d->kernel.direct_a) {
      d->one_panel = own.exact_one_panel;
    }
    // The row-tail kernel likewise: same A (format, modes) and columns as the exact kernel.
    if (own.exact_row_tail.fn != nullptr && own.exact.fn == d->kernel.fn &&
        own.exact_row_tail.nr == d->kernel.nr && own.exact_row_tail.format == d->kernel.format &&
        own.exact_row_tail.direct_a == d->kernel.direct_a) {
      d->row_tail = own.exact_row_tail;
    }
  }
  const std::size_t nr_all = d->narrow.fn ? std::max(d->kernel.nr, d->narrow.nr) : d->kernel.nr;
  d->group = d->kernel.format == PackFormat::kPairs16 ? 2 : 4;
  d->kgroups = (w.k + d->group - 1) / d->group;
  d->panels = round_up((w.n + kPanelCols - 1) / kPanelCols, nr_all / kPanelCols);
  d->panel_stride = d->kgroups * kPanelGroupBytes;

  d->b_zero_point.assign(w.n, 0);
  d->has_b_zero_point = false;
  if (w.zero_points != nullptr) {
    for (std::size_t j = 0; j < w.n; ++j) {
      d->b_zero_point[j] = w.zero_points[w.zero_point_per_channel ? j : 0];
      d->has_b_zero_point |= d->b_zero_point[j] != 0;
    }
    d->b_zero_point_per_channel = w.zero_point_per_channel;
  }
  d->bias.assign(w.n, 0);
  if (w.bias != nullptr) std::copy(w.bias, w.bias + w.n, d->bias.begin());
  d->per_channel = w.per_channel;
  d->params.assign(w.params, w.params + (w.per_channel ? w.n : 1));
  d->col_sum.assign(w.n, 0);
  d->col_abs_sum.assign(w.n, 0);
  pack_b(w, *d);

  // Blocking. kc: up to 1024 groups (4 KiB of each A row). Every K block but the last stores its
  // accumulators and the next loads them back; that round trip, not where the operands live, is
  // what a block costs: the kernels read a 32-column B slice at ~8 bytes per cycle and A at ~2,
  // which L2 sustains, so keeping the B slice in L1 (the earlier 128-group blocks, 16 KiB) does
  // not pay. Measured on AVX-512 VNNI (Zen 4, one core, GOPS, 128-group blocks -> whole K):
  // 1024^3 DR-AZ 425 -> 439, 784x128x1152 424 -> 443, 14x14x256->256 3x3 conv 421 -> 442,
  // 56x56x64->64 3x3 conv 387 -> 407; the AVX2 and AVX-512BW kernels gain 3-5 % too. At 1024
  // groups a 96-row A tile is 384 KiB and a B slice 128 KiB, within L2. AMX too, measured on its
  // first AMX machine (Xeon family 6 model 207, one core, DR-AZ): with LDTILECFG on every kernel
  // call, 128-group blocks -> 1024 took 1024^3 from 1.29 to 1.70 TOPS (one run each); with the
  // configuration once per tile, 128, 256 and 1024 groups (and taller tiles, mc 256) were within
  // that noisy machine's noise of each other (best of 3: 1.68, 1.83, 1.72 TOPS). A multiple of 16 groups
  // (AMX tile depth).
  // mc x nc: about 96 x 256 int32 accumulators (96 KiB, L2) per tile, enough tiles for threads.
  // K longer than one block is split into equal blocks (rounded to 16 groups) rather than full
  // blocks and a short tail, whose tail would pay a whole tile's accumulator load / store for a
  // few groups.
  constexpr std::size_t kc_max = 1024;
  const std::size_t k_blocks = (d->kgroups + kc_max - 1) / kc_max;
  d->kc = std::min<std::size_t>(kc_max, round_up((d->kgroups + k_blocks - 1) / k_blocks, 16));
  // Short K (a 1x1 convolution over few channels): taller tiles, up to 384 rows, so that the
  // per-tile costs (initial values, requantization parameter set-up) are spread over more rows;
  // the packed A block stays ~12 KiB or less.
  const std::size_t tall = d->kgroups >= 32 ? 96 : std::min<std::size_t>(384, 96 * 32 / d->kgroups);
  d->mc = round_up(tall, d->kernel.mr);
  d->nc = std::max<std::size_t>(d->kernel.nr, 256 / d->kernel.nr * d->kernel.nr);
  // Few rows: the work per tile is small, so wider tiles (fewer, cheaper per-tile setups).
  if (d->narrow.fn) d->narrow_nc = std::max<std::size_t>(d->narrow.nr, 512 / d->narrow.nr * d->narrow.nr);
  // Rows are the innermost loop of a few-row tile: a 64-group K block keeps the B slice the rows
  // share in L1 (64 groups x 64 columns x 4 bytes = 16 KiB). A single row shares nothing and takes
  // the main blocks (kc) instead (blocking_for): on Zen 5, 1 x 1000 x 1024 DR-AZ / oneDNN within
  // one run went 1.05-1.11 -> 1.06-1.24 (medians 1.09 -> 1.21 over four alternating runs).
  d->narrow_kc = std::min<std::size_t>(64, round_up(d->kgroups, 16));
  d->col_base_unsigned.resize(w.n);
  d->col_base_signed.resize(w.n);
  d->col_coef.resize(w.n);
  for (std::size_t j = 0; j < w.n; ++j) {
    const std::uint64_t sum = static_cast<std::uint64_t>(d->col_sum[j]);
    const std::uint64_t bias = static_cast<std::uint64_t>(static_cast<std::int64_t>(d->bias[j]));
    const std::uint64_t kzb = static_cast<std::uint64_t>(static_cast<std::int64_t>(w.k)) *
                              static_cast<std::uint64_t>(static_cast<std::int64_t>(d->b_zero_point[j]));
    d->col_base_unsigned[j] = wrap_to_int32(static_cast<std::int64_t>(bias));
    d->col_base_signed[j] = wrap_to_int32(static_cast<std::int64_t>(bias - 128 * sum));
    d->col_coef[j] = wrap_to_int32(static_cast<std::int64_t>(kzb - sum));
  }
  plan_epilogue(*d);
  data_ = std::move(d);
}

PackedGemm::~PackedGemm() = default;
PackedGemm::PackedGemm(PackedGemm&&) noexcept = default;
PackedGemm& PackedGemm::operator=(PackedGemm&&) noexcept = default;

std::size_t PackedGemm::n() const { return data_->n; }
std::size_t PackedGemm::k() const { return data_->k; }
RoundingCore PackedGemm::core() const { return data_->core; }
AccumulatorSpec PackedGemm::accumulator() const { return data_->accumulator; }
Isa PackedGemm::isa() const { return data_->isa; }
std::string PackedGemm::kernel_name() const { return data_->kernel.name; }
std::string PackedGemm::kernel_name(std::size_t m) const {
  return internal::blocking_for(*data_, m).kernel->name;
}
std::size_t PackedGemm::packed_bytes() const {
  return data_->b_packed.size() + data_->n * (2 * sizeof(std::int64_t) + 2 * sizeof(std::int32_t)) +
         data_->params.size() * sizeof(RequantParams) + data_->epilogue.chan.size();
}

}  // namespace qparity
