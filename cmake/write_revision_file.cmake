# Writes TEMPLATE to OUTPUT with @SCX_REVISION@ (the source checkout's git revision,
# "unknown" outside a git checkout) and the other @VARIABLES@ given with -D. Run with
# `cmake -P` at every build (exporter/CMakeLists.txt, deploy/package.cmake), so that a
# build tree rebuilt after new commits names them; configure_file leaves OUTPUT alone
# when its text is unchanged, so nothing is recompiled or repackaged otherwise. With
# -DGZIP=ON it also keeps OUTPUT.gz (gzip -9n) up to date beside it.
#
#   cmake -DSOURCE_DIR=<checkout> -DTEMPLATE=<in> -DOUTPUT=<out> [-DGZIP=ON]
#         [-D<VARIABLE>=<value>...] -P write_revision_file.cmake
foreach(required SOURCE_DIR TEMPLATE OUTPUT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "write_revision_file.cmake: -D${required}=... is missing")
  endif()
endforeach()

execute_process(
  COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE SCX_REVISION
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT SCX_REVISION)
  set(SCX_REVISION "unknown")
endif()

set(before "")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} before)
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
file(READ ${OUTPUT} after)

if(GZIP AND (NOT EXISTS ${OUTPUT}.gz OR NOT before STREQUAL after))
  execute_process(COMMAND gzip -9nkf ${OUTPUT} RESULT_VARIABLE gzip_result)
  if(NOT gzip_result EQUAL 0)
    message(FATAL_ERROR "write_revision_file.cmake: gzip ${OUTPUT} failed")
  endif()
endif()
