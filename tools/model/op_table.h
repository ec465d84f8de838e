// Which op uses which arithmetic under a set of profiles: every op's samples (op_sample.h) picked
// and prepared by each profile, for `qparity list --ops` (and the Python module's equivalent).
#pragma once

#include <string>
#include <vector>

#include "model/system.h"

namespace qparity::model {

struct OpTableRow {
  std::string op;      ///< "CONV_2D"
  std::string sample;  ///< the sample's configuration
  /// One cell per profile: "<path>: <preset>", with the op's own variant where it names one
  /// (elementwise arithmetics, pooling variants), or "not supported: <reason>" when the profile
  /// cannot prepare the sample.
  std::vector<std::string> cells;
};

/// The table for `profiles` (names as find_profile takes them), one row per op sample in op-list
/// order. Throws cli::ToolError for an unknown profile name.
std::vector<OpTableRow> op_arithmetic_table(const std::vector<std::string>& profiles);

/// The profiles `qparity list --ops` shows by default: TFLite with XNNPACK and without a delegate,
/// on x86 and on ARM.
std::vector<std::string> default_table_profiles();

}  // namespace qparity::model
