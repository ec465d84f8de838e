// The oracle use case: one include, nothing to link. Exit status 0 iff the reference computes the
// documented vectors of docs/semantics.md §11.2 (scale 0.0037: DR-AZ rounds 135 to 1, SR-UP to 0).
#include <qparity/reference.h>

int main() {
  const qparity::QuantizedMultiplier m = qparity::quantize_multiplier_tflite(0.0037);
  qparity::RequantParams p;
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  const bool ok = m.multiplier == 2034096511 && m.shift == -8 &&
                  qparity::DoubleRoundingAwayFromZero::requantize(135, p) == 1 &&
                  qparity::SingleRoundingUpward::requantize(135, p) == 0 &&
                  qparity::DoubleRoundingUpward::requantize(-135, p) == 0;
  return ok ? 0 : 1;
}
