#include "csv_input.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "qparity/requant_params.h"

namespace qparity::cli {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Removes one leading '+' when a digit, '.' or letter follows (from_chars rejects '+').
std::string_view strip_plus(std::string_view t) {
  if (t.size() >= 2 && t[0] == '+' && t[1] != '-' && t[1] != '+') t.remove_prefix(1);
  return t;
}

std::string allowed_range(std::int64_t lo, std::int64_t hi, std::string_view note) {
  std::string s = fmt::format("[{}, {}]", lo, hi);
  if (!note.empty()) s += fmt::format(" ({})", note);
  return s;
}

}  // namespace

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

ParseStatus parse_int64(std::string_view text, std::int64_t* out) {
  text = strip_plus(trim(text));
  if (text.empty()) return ParseStatus::kNotANumber;
  std::int64_t value = 0;
  const char* const last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), last, value, 10);
  if (ptr != last) return ParseStatus::kNotANumber;
  if (ec == std::errc::result_out_of_range) return ParseStatus::kOutOfRange;
  if (ec != std::errc()) return ParseStatus::kNotANumber;
  *out = value;
  return ParseStatus::kOk;
}

ParseStatus parse_double(std::string_view text, double* out) {
  text = strip_plus(trim(text));
  if (text.empty()) return ParseStatus::kNotANumber;
  double value = 0.0;
  const char* const last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), last, value, std::chars_format::general);
  if (ptr != last) return ParseStatus::kNotANumber;
  if (ec == std::errc::result_out_of_range) return ParseStatus::kOutOfRange;
  if (ec != std::errc()) return ParseStatus::kNotANumber;
  *out = value;
  return ParseStatus::kOk;
}

bool parse_int_in_range(std::string_view text, const char* name, std::int64_t lo, std::int64_t hi,
                        std::string_view note, std::int64_t* out, std::string* error) {
  std::int64_t value = 0;
  const std::string_view shown = trim(text);
  switch (parse_int64(text, &value)) {
    case ParseStatus::kNotANumber:
      *error = fmt::format("{} '{}' is not an integer; allowed: {}", name, shown,
                           allowed_range(lo, hi, note));
      return false;
    case ParseStatus::kOutOfRange:
      *error = fmt::format("{} = {} is out of range; allowed: {}", name, shown,
                           allowed_range(lo, hi, note));
      return false;
    case ParseStatus::kOk:
      break;
  }
  if (value < lo || value > hi) {
    *error = fmt::format("{} = {} is out of range; allowed: {}", name, value,
                         allowed_range(lo, hi, note));
    return false;
  }
  *out = value;
  return true;
}

bool is_blank_or_comment(std::string_view line) {
  line = trim(line);
  return line.empty() || line.front() == '#';
}

bool parse_requant_line(std::string_view line, bool scale_mode, RequantRecord* out,
                        std::string* error) {
  const std::size_t expected = scale_mode ? 2 : 3;
  std::string_view fields[3];
  std::size_t count = 0;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    const std::string_view field = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (count < expected) fields[count] = field;
    ++count;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (count != expected) {
    *error = fmt::format("expected {} comma-separated fields ({}), got {}", expected,
                         scale_mode ? "acc,scale" : "acc,multiplier,shift", count);
    return false;
  }
  std::int64_t value = 0;
  if (!parse_int_in_range(fields[0], "acc", INT32_MIN, INT32_MAX, "int32 accumulator", &value,
                          error)) {
    return false;
  }
  out->acc = static_cast<std::int32_t>(value);
  if (scale_mode) {
    double scale = 0.0;
    const std::string_view shown = trim(fields[1]);
    const ParseStatus st = parse_double(fields[1], &scale);
    if (st == ParseStatus::kNotANumber) {
      *error = fmt::format("scale '{}' is not a number; allowed: a finite value > 0", shown);
      return false;
    }
    if (st == ParseStatus::kOutOfRange || !(std::isfinite(scale) && scale > 0.0)) {
      *error = fmt::format("scale = {} is out of range; allowed: a finite value > 0", shown);
      return false;
    }
    out->scale = scale;
    return true;
  }
  if (!parse_int_in_range(fields[1], "multiplier", 0, kQ31MultiplierMax, "Q31 mantissa", &value,
                          error)) {
    return false;
  }
  out->multiplier = static_cast<std::int32_t>(value);
  if (!parse_int_in_range(fields[2], "shift", kQ31ShiftMin, kQ31ShiftMax,
                          "TFLite convention, > 0 = left", &value, error)) {
    return false;
  }
  out->shift = static_cast<std::int32_t>(value);
  return true;
}

LineReader::LineReader(std::FILE* file, std::size_t block_size)
    : file_(file), buffer_(block_size < 16 ? 16 : block_size) {}

bool LineReader::fill() {
  if (eof_) return false;
  // Move the partial line to the front; grow the buffer if one line fills all of it.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const std::size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  end_ += got;
  if (got == 0) {
    eof_ = true;
    read_error_ = std::ferror(file_) != 0;
    return false;
  }
  return true;
}

bool LineReader::next(std::string_view* line) {
  std::size_t scanned = begin_;
  for (;;) {
    const void* nl =
        scanned < end_ ? std::memchr(buffer_.data() + scanned, '\n', end_ - scanned) : nullptr;
    if (nl != nullptr) {
      const std::size_t pos =
          static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.data());
      std::size_t stop = pos;
      if (stop > begin_ && buffer_[stop - 1] == '\r') --stop;
      *line = std::string_view(buffer_.data() + begin_, stop - begin_);
      begin_ = pos + 1;
      return true;
    }
    const std::size_t pending = end_ - begin_;
    if (!fill()) {
      if (end_ == begin_) return false;
      // Last line without a newline.
      std::size_t stop = end_;
      if (stop > begin_ && buffer_[stop - 1] == '\r') --stop;
      *line = std::string_view(buffer_.data() + begin_, stop - begin_);
      begin_ = end_;
      return true;
    }
    scanned = begin_ + pending;  // fill() moved the pending bytes to the front
  }
}

}  // namespace qparity::cli
