# ctest: systemd-analyze verify on robot-edge.service, and its MemoryMax, TasksMax and LimitNOFILE
# (below). Fails on a non-zero exit status AND on any
# message about the unit: systemd-analyze exits 0 on unknown keys and unparsable values, which
# it only logs ("Unknown key 'ProtectHomme' in section [Service], ignoring.").
#   cmake -DSYSTEMD_ANALYZE=... -DUNIT=.../robot-edge.service -P verify_unit.cmake
execute_process(
  COMMAND ${SYSTEMD_ANALYZE} verify --man=no ${UNIT}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
get_filename_component(name ${UNIT} NAME)
string(FIND "${output}" "${name}" mentioned)
if(NOT status EQUAL 0 OR NOT mentioned EQUAL -1)
  message(FATAL_ERROR "systemd-analyze verify ${UNIT} (exit status ${status}):\n${output}")
endif()
message(STATUS "systemd-analyze verify ${UNIT}: clean${output}")

# Every unit bounds what a leak or a flood can take (issue 32): memory, tasks, descriptors.
file(READ ${UNIT} unit_text)
foreach(key MemoryMax TasksMax LimitNOFILE)
  if(NOT unit_text MATCHES "\n${key}=[^\n]+")
    message(FATAL_ERROR "${UNIT}: no ${key}= (every unit bounds its memory, tasks and descriptors)")
  endif()
endforeach()

# robot-edge.service: a start limit sized for a fleet apply's rollback (issue 38, M5): two failed
# applies of the uplink's default apply_timeout_s (10 s: 12 starts each) and a start to spare.
if(name STREQUAL "robot-edge.service")
  if(NOT unit_text MATCHES "\nStartLimitBurst=([0-9]+)")
    message(FATAL_ERROR "${UNIT}: no StartLimitBurst= (docs/fleet-config.md, \"The start limit\")")
  endif()
  if(CMAKE_MATCH_1 LESS 25)
    message(FATAL_ERROR "${UNIT}: StartLimitBurst=${CMAKE_MATCH_1} cannot hold two failed fleet "
                        "applies (12 starts each): at least 25")
  endif()
endif()
