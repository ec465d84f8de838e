// Downstream use of qparity::reference alone (no compiled library).
#include <qparity/reference.h>

int main() {
  qparity::RequantParams p;
  p.multiplier = 1 << 30;
  p.shift = -1;
  // docs/semantics.md §11.1: acc = -10 at scale 0.25 is the tie -2.5.
  return qparity::DoubleRoundingAwayFromZero::requantize(-10, p) == -3 &&
                 qparity::SingleRoundingUpward::requantize(-10, p) == -2
             ? 0
             : 1;
}
