// The header-only oracle in a program compiled with -fno-exceptions that links qparity::reference
// alone. Exit status 0 iff the reference computes the documented vectors of docs/semantics.md
// §11.2. With --bad-input it validates a shift of 31, which must print the message to stderr and
// abort (error.h's no-exceptions handler; checked by expect_abort.cmake).
#include <qparity/reference.h>

#include <cstdint>
#include <cstring>

#if QPARITY_HAS_EXCEPTIONS
#error "this consumer must be compiled with -fno-exceptions"
#endif

int main(int argc, char** argv) {
  qparity::RequantParams p;
  if (argc > 1 && std::strcmp(argv[1], "--bad-input") == 0) {
    p.multiplier = 1 << 30;
    p.shift = 31;
    qparity::validate(qparity::RoundingCore::kSingleRoundingUpward, p);
    return 0;  // not reached
  }
  const qparity::QuantizedMultiplier m = qparity::quantize_multiplier_tflite(0.0037);
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  qparity::validate(qparity::RoundingCore::kDoubleRoundingAwayFromZero, p);
  const bool ok = m.multiplier == 2034096511 && m.shift == -8 &&
                  qparity::DoubleRoundingAwayFromZero::requantize(135, p) == 1 &&
                  qparity::SingleRoundingUpward::requantize(135, p) == 0 &&
                  qparity::DoubleRoundingUpward::requantize(-135, p) == 0;
  return ok ? 0 : 1;
}
