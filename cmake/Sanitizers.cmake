# Sanitizer and fuzzing builds (scripts/sanitize makes them, each in a build directory of its
# own). Both apply to every target, so that the project's libraries are instrumented too.
#
#   -DROBOT_EDGE_SANITIZE=address,undefined   AddressSanitizer + UndefinedBehaviorSanitizer
#   -DROBOT_EDGE_SANITIZE=thread              ThreadSanitizer
#   -DROBOT_EDGE_FUZZ=ON                      the libFuzzer targets of tests/fuzz (clang only);
#                                             every target is built with coverage for them
# Every report is an error: nothing recovers and goes on.
set(ROBOT_EDGE_SANITIZE "" CACHE STRING "Sanitizers for every target (address,undefined or thread)")
option(ROBOT_EDGE_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)

if(ROBOT_EDGE_SANITIZE)
  add_compile_options(-fsanitize=${ROBOT_EDGE_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${ROBOT_EDGE_SANITIZE})
endif()
if(ROBOT_EDGE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ROBOT_EDGE_FUZZ needs clang (CXX=clang++): libFuzzer is clang's")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
