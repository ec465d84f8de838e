// A plain-text table with aligned columns (ASCII cell contents), rendered into an fmt buffer.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace qparity::cli {

class Table {
 public:
  enum class Align { kLeft, kRight };

  /// Column headers; every column is left-aligned unless set_align() says otherwise.
  explicit Table(std::vector<std::string> headers);

  void set_align(std::size_t column, Align align);

  /// A row; missing trailing cells are empty, extra cells are an error (ignored).
  void add_row(std::vector<std::string> cells);

  /// Header, a dashed rule, then the rows. Columns are separated by two spaces; the last column
  /// is not padded (no trailing blanks).
  void render(fmt::memory_buffer& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace qparity::cli
