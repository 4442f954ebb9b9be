# ctest: systemd-analyze verify on robot-edge.service. Fails on a non-zero exit status AND on any
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
