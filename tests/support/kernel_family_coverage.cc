// The non-template half of kernel_family_coverage.h: the checks that need only ISAs and masks.
#include "kernel_family_coverage.h"

#include "qparity/error.h"

namespace qparity_test {

qparity::IsaMask mask_of_isas(std::initializer_list<qparity::Isa> isas) {
  qparity::IsaMask m = 0;
  for (qparity::Isa isa : isas) m |= qparity::mask_of(isa);
  return m;
}

qparity::Isa active_isa_when_forced_to(qparity::Isa isa) {
  qparity::set_isa_mask_for_testing(qparity::isas_up_to(isa));
  const qparity::Isa active = qparity::active_isa();
  qparity::set_isa_mask_for_testing(0);
  return active;
}

void check_serving_levels(const char* family, const std::function<qparity::Isa(qparity::Isa)>& kernel_isa,
                          qparity::IsaMask scalar_served) {
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::compiled_isas() & qparity::mask_of(isa)) == 0) continue;
    const qparity::Isa served = kernel_isa(isa);
    const bool simd = (scalar_served & qparity::mask_of(isa)) == 0;
    EXPECT_EQ(served != qparity::Isa::kScalar, simd)
        << family << ": " << qparity::to_string(isa) << " served by " << qparity::to_string(served);
  }
}

void check_refuses_unsupported(const char* family, const char* variant,
                               const std::function<void(qparity::Isa)>& forced) {
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) != 0) continue;
    EXPECT_THROW(forced(isa), qparity::InvalidArgument) << family << " " << variant << ": " << qparity::to_string(isa);
  }
}

void check_every_supported_isa_forced(const char* family, const char* variant, qparity::IsaMask forced) {
  // Scalar is always supported, so an empty sweep fails here too.
  const qparity::IsaMask missing = qparity::supported_isas() & ~forced;
  EXPECT_EQ(missing, 0u) << family << " " << variant << ": supported but not forced: {"
                         << qparity::isa_names(missing, ",") << "}; forced: {" << qparity::isa_names(forced, ",")
                         << "}";
  EXPECT_NE(forced & qparity::mask_of(qparity::Isa::kScalar), 0u) << family << " " << variant << ": scalar not forced";
}

}  // namespace qparity_test
