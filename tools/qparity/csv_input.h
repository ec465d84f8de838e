// Strict parsing of numbers and of the `qparity requant` input lines, and a block-buffered line
// reader. Nothing here prints: every failure comes back as a status or a message the caller
// prefixes with its own context ("qparity requant: line 7: ...").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace qparity::cli {

enum class ParseStatus : std::uint8_t {
  kOk,
  kNotANumber,  ///< empty, stray characters, or not the expected kind of number
  kOutOfRange,  ///< well-formed but does not fit the target type
};

/// `text` without leading and trailing spaces, tabs and carriage returns.
std::string_view trim(std::string_view text);

/// Parses all of `text` (surrounding blanks allowed, an optional leading '+') as a decimal int64.
ParseStatus parse_int64(std::string_view text, std::int64_t* out);

/// Parses all of `text` (surrounding blanks allowed, an optional leading '+') as a double in
/// decimal or scientific notation, or "inf"/"nan" (which callers then reject by range).
/// Hexadecimal floats are not accepted. An overflowing literal (1e999) is kOutOfRange.
ParseStatus parse_double(std::string_view text, double* out);

/// Parses an integer and checks it against [lo, hi]. On failure writes
///   "<name> 'text' is not an integer; allowed: <allowed>"   or
///   "<name> = text is out of range; allowed: <allowed>"
/// to *error, where <allowed> is "[lo, hi]" followed by " (note)" when note is non-empty.
bool parse_int_in_range(std::string_view text, const char* name, std::int64_t lo, std::int64_t hi,
                        std::string_view note, std::int64_t* out, std::string* error);

/// True for lines `qparity requant` skips: empty or blank, or whose first non-blank character
/// is '#'.
bool is_blank_or_comment(std::string_view line);

/// One parsed `qparity requant` record. TFLite sign convention for shift (> 0 = left).
struct RequantRecord {
  std::int32_t acc = 0;
  std::int32_t multiplier = 0;  ///< `acc,multiplier,shift` lines
  std::int32_t shift = 0;       ///< `acc,multiplier,shift` lines
  double scale = 0.0;           ///< `acc,scale` lines
};

/// Parses one non-skipped line: `acc,multiplier,shift` or, with scale_mode, `acc,scale`.
/// Checks acc in int32, multiplier in [0, 2^31-1], shift in [-31, 30], scale finite and > 0.
/// Returns false with a one-line description of the first problem in *error.
bool parse_requant_line(std::string_view line, bool scale_mode, RequantRecord* out,
                        std::string* error);

/// Reads a stream line by line in large blocks. The views returned by next() stay valid until the
/// following call. Lines end at '\n'; a trailing '\r' is removed; a last line without '\n' counts.
class LineReader {
 public:
  explicit LineReader(std::FILE* file, std::size_t block_size = std::size_t{1} << 20);

  /// The next line, or false at end of input (or on a read error: check read_error()).
  bool next(std::string_view* line);

  /// True if reading failed (as opposed to reaching the end of the input).
  bool read_error() const { return read_error_; }

 private:
  bool fill();

  std::FILE* file_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  ///< start of the unconsumed bytes
  std::size_t end_ = 0;    ///< end of the valid bytes
  bool eof_ = false;
  bool read_error_ = false;
};

}  // namespace qparity::cli
