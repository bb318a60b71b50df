# Precompiled headers for the targets with many translation units: the
# third-party headers nearly all of them include (JSON, spdlog, fmt, Asio,
# the standard library) are parsed once per target instead of once per
# file, which cuts a clean build (three of them in scripts/test.sh) by about
# a third. -DTUNER_PCH=OFF builds without them (e.g. to check that each
# file includes what it uses).
option(TUNER_PCH "Precompile the common third-party headers" ON)

set(TUNER_PCH_COMMON
  <nlohmann/json.hpp> <spdlog/spdlog.h> <fmt/format.h>
  <boost/asio/io_context.hpp> <boost/asio/post.hpp>
  <boost/asio/steady_timer.hpp>
  <algorithm> <chrono> <filesystem> <functional> <map> <memory> <optional>
  <set> <string> <string_view> <unordered_map> <variant> <vector>)

# tuner_precompile(TARGET [HEADER...]): the common headers and HEADERs.
# Not for a unity-built target (CMAKE_UNITY_BUILD when it is declared): its
# few large batches parse the headers a few times only, and the header
# itself costs as much as a batch (a clean build of tuner and tuner-shim
# takes a fifth less CPU without it).
function(tuner_precompile target)
  if(TUNER_PCH AND NOT CMAKE_UNITY_BUILD)
    target_precompile_headers(${target} PRIVATE ${TUNER_PCH_COMMON} ${ARGN})
  endif()
endfunction()

# tuner_precompile_shared(TARGET GROUP [HEADER...]): the first target of
# GROUP precompiles; the others (same flags) reuse its header.
function(tuner_precompile_shared target group)
  if(NOT TUNER_PCH OR CMAKE_UNITY_BUILD)
    return()
  endif()
  get_property(first GLOBAL PROPERTY TUNER_PCH_GROUP_${group})
  if(first)
    target_precompile_headers(${target} REUSE_FROM ${first})
  else()
    tuner_precompile(${target} ${ARGN})
    set_property(GLOBAL PROPERTY TUNER_PCH_GROUP_${group} ${target})
  endif()
endfunction()
