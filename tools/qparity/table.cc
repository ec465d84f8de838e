#include "table.h"

#include <algorithm>
#include <iterator>

namespace qparity::cli {

Table::Table(std::vector<std::string> headers)
    : headers_(std::move(headers)), align_(headers_.size(), Align::kLeft) {}

void Table::set_align(std::size_t column, Align align) {
  if (column < align_.size()) align_[column] = align;
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::render(fmt::memory_buffer& out) const {
  const std::size_t n = headers_.size();
  std::vector<std::size_t> width(n, 0);
  for (std::size_t c = 0; c < n; ++c) width[c] = headers_[c].size();
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < n; ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto emit = [&](const std::vector<std::string>& cells) {
    // The last non-empty cell ends the line (no trailing blanks).
    std::size_t last = n;
    while (last > 0 && cells[last - 1].empty()) --last;
    std::string line;
    for (std::size_t c = 0; c < last; ++c) {
      if (c > 0) line += "  ";
      const std::size_t pad = width[c] - cells[c].size();
      if (align_[c] == Align::kRight) line.append(pad, ' ');
      line += cells[c];
      if (align_[c] == Align::kLeft && c + 1 < last) line.append(pad, ' ');
    }
    line += '\n';
    out.append(line.data(), line.data() + line.size());
  };
  emit(headers_);
  std::vector<std::string> rule(n);
  for (std::size_t c = 0; c < n; ++c) rule[c] = std::string(width[c], '-');
  emit(rule);
  for (const auto& row : rows_) emit(row);
}

}  // namespace qparity::cli
