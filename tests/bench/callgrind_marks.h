// callgrind_marks.h — callgrind's instrumentation marks (valgrind/callgrind.h) where valgrind is
// installed. Where it is not (scripts/lib.sh does not install it, and scribe_build compiles these
// programs: every benchmark, and grade_profile as the profile-guided build's training run), the
// marks do nothing: the programs build and time, and only callgrind's counts need valgrind.
#pragma once

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define RUNNING_ON_VALGRIND 0
#endif
