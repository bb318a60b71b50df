// Text shown on one line whatever it holds.
#ifndef TUNER_ONE_LINE_H_
#define TUNER_ONE_LINE_H_

#include <string>
#include <string_view>

namespace tuner {

// `text` with every control character (below 0x20, and 0x7f) written as
// \xNN, and C1 controls and bidirectional overrides as \uNNNN, so an error
// or a stored reason prints as exactly one line, as it is.
std::string OneLine(std::string_view text);

}  // namespace tuner

#endif  // TUNER_ONE_LINE_H_
