# robot_edge_warnings: link it to every target of the project.
add_library(robot_edge_warnings INTERFACE)
target_compile_options(robot_edge_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wimplicit-fallthrough)
if(ENABLE_WERROR)
  target_compile_options(robot_edge_warnings INTERFACE -Werror)
endif()
