# robot_edge_forbid_links(TARGET DEPENDENCY...): the configure step fails when TARGET links any
# DEPENDENCY, directly or through the libraries it links (PRIVATE links of static libraries
# included: they reach the final link as $<LINK_ONLY:...>). Checked at the end of the top-level
# CMakeLists.txt, once every target_link_libraries has run.
#
# ROBOT_EDGE_NOT_ON_THE_CONTROL_THREAD: what the control thread's code must never link (it
# neither logs, allocates messages nor waits on sockets).
set(ROBOT_EDGE_NOT_ON_THE_CONTROL_THREAD robot_edge_asio protobuf::libprotobuf spdlog::spdlog
    robot_edge_proto)

# ROBOT_EDGE_BELOW_CONFIG: what can/, statemachine/ and policy/ must never link. They declare the
# options they need (can/wiring.hpp, statemachine/options.hpp, statemachine/joint_params.hpp,
# policy/setup.hpp) and config/ maps the YAML onto them, so the dependency runs
# config -> can, statemachine, policy only.
set(ROBOT_EDGE_BELOW_CONFIG robot_edge_config yaml-cpp)

# The targets TARGET links, transitively, into OUT (a list).
function(robot_edge_link_closure target out)
  set(seen "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue item)
    if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
      set(item "${CMAKE_MATCH_1}")
    endif()
    if(item IN_LIST seen OR item MATCHES "^\\$<")
      continue()
    endif()
    list(APPEND seen "${item}")
    if(NOT TARGET "${item}")
      continue()
    endif()
    get_target_property(aliased "${item}" ALIASED_TARGET)
    if(aliased)
      list(APPEND queue "${aliased}")
    endif()
    get_target_property(links "${item}" INTERFACE_LINK_LIBRARIES)
    if(links)
      list(APPEND queue ${links})
    endif()
    if(item STREQUAL target)
      get_target_property(own "${item}" LINK_LIBRARIES)
      if(own)
        list(APPEND queue ${own})
      endif()
    endif()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

function(robot_edge_check_forbidden_links target)
  robot_edge_link_closure(${target} closure)
  foreach(forbidden IN LISTS ARGN)
    if(forbidden IN_LIST closure)
      message(FATAL_ERROR "${target} links ${forbidden} (through: ${closure}); "
                          "it must not (cmake/LinkGuard.cmake)")
    endif()
  endforeach()
endfunction()

function(robot_edge_forbid_links target)
  # EVAL: the deferred call's arguments would otherwise be read when it runs, not now.
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL robot_edge_check_forbidden_links [[${target}]] ${ARGN})")
endfunction()
