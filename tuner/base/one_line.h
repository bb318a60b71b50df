// The one sanitiser for text shown to people (core/printable.h), named in
// the wiring's namespace: Printable, OneLine, HasControl, ControlShown.
#ifndef TUNER_ONE_LINE_H_
#define TUNER_ONE_LINE_H_

#include "core/printable.h"

namespace tuner {

using core::ControlShown;
using core::HasControl;
using core::OneLine;
using core::Printable;

}  // namespace tuner

#endif  // TUNER_ONE_LINE_H_
