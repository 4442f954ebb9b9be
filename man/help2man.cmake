# One man page by help2man (man/CMakeLists.txt):
#   cmake -DHELP2MAN=... -DGZIP=... -DPROGRAM=path/robot-edged -DSECTION=8 -DINCLUDE=x.h2m
#         -DOUT=robot-edged.8.gz -P help2man.cmake
# help2man makes a heading line of the help ("Exit status:") a subsection of the one before; the
# exit status gets its own section, EXIT STATUS, as man-pages(7) orders it. The page is gzipped
# with -n (no name or time stamp in the header: the same input gives the same bytes).
get_filename_component(name ${PROGRAM} NAME)
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=${SECTION} --include=${INCLUDE} ${PROGRAM}
  OUTPUT_VARIABLE page
  ERROR_VARIABLE error
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man ${name} failed (${status}): ${error}")
endif()
string(FIND "${page}" ".SS \"Exit status:\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${name} --help has no \"Exit status:\" paragraph (the man page needs one)")
endif()
string(REPLACE ".SS \"Exit status:\"" ".SH \"EXIT STATUS\"" page "${page}")
get_filename_component(dir ${OUT} DIRECTORY)
set(plain ${dir}/${name}.${SECTION})
file(WRITE ${plain} "${page}")
execute_process(COMMAND ${GZIP} -9nf ${plain} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip ${plain} failed")
endif()
