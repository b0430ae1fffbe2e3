# Writes TEMPLATE to OUTPUT with @SCX_REVISION@ (the source checkout's git revision,
# "unknown" outside a git checkout), @SCX_BRANCH@ (its branch, "HEAD" when detached,
# as promu names it), @SCX_BUILD_USER@ and @SCX_BUILD_DATE@ (below) and the other
# @VARIABLES@ given with -D. Run with
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
execute_process(
  COMMAND git rev-parse --abbrev-ref HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE SCX_BRANCH
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT SCX_BRANCH)
  set(SCX_BRANCH "unknown")
endif()

# The build date, as promu writes it (20060102-15:04:05, UTC): SOURCE_DATE_EPOCH when
# set (reproducible builds), else the time of the commit built, so that the same
# sources give the same file and a rebuild with no new commit rewrites nothing (the
# wall clock would recompile at every build); "unknown" outside a git checkout.
set(epoch "$ENV{SOURCE_DATE_EPOCH}")
if(NOT epoch)
  execute_process(
    COMMAND git log -1 --format=%ct HEAD
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE epoch
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
endif()
set(SCX_BUILD_DATE "unknown")
if(epoch MATCHES "^[0-9]+$")
  set(saved_epoch "$ENV{SOURCE_DATE_EPOCH}")
  set(ENV{SOURCE_DATE_EPOCH} "${epoch}")  # string(TIMESTAMP) then formats that time
  string(TIMESTAMP SCX_BUILD_DATE "%Y%m%d-%H:%M:%S" UTC)
  set(ENV{SOURCE_DATE_EPOCH} "${saved_epoch}")
endif()

# The build user, as promu writes it (user@host): SCX_BUILD_USER when set; else
# "unknown" in a reproducible build (SOURCE_DATE_EPOCH set), which must not depend on
# who builds it; else the user and host building.
set(SCX_BUILD_USER "$ENV{SCX_BUILD_USER}")
if(NOT SCX_BUILD_USER AND "$ENV{SOURCE_DATE_EPOCH}" STREQUAL "")
  execute_process(COMMAND id -un OUTPUT_VARIABLE user OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  cmake_host_system_information(RESULT host QUERY HOSTNAME)
  if(user AND host)
    set(SCX_BUILD_USER "${user}@${host}")
  endif()
endif()
if(NOT SCX_BUILD_USER)
  set(SCX_BUILD_USER "unknown")
endif()
# Both go into C string literals and label values as they are: anything beyond a
# plain name's characters becomes "_".
foreach(name SCX_BRANCH SCX_BUILD_USER)
  string(REGEX REPLACE "[^A-Za-z0-9._@:/+-]" "_" ${name} "${${name}}")
endforeach()

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
