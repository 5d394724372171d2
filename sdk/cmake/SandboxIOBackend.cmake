# SPDX-License-Identifier: MIT
# sandboxio_add_backend(NAME SOURCES src.c... [LIBRARIES lib...])
#
# Builds sbio-backend-NAME.so the way the core expects it: no "lib" prefix,
# hidden visibility, only the entry symbol exported (linker version script),
# linked -z now -z defs so unresolved symbols fail at build time rather than
# at dlopen, --as-needed so unused libraries are not dependencies, and
# installed into the backend directory (component backend-NAME).
#
# The same file serves sandboxio's own tree and, installed next to
# SandboxIOConfig.cmake, every out-of-tree backend (find_package(SandboxIO)).
# It reads two variables, set by whichever of the two included it:
#   SBIO_BACKEND_OUTPUT_DIR  where the .so is built
#   SBIO_INSTALL_BACKENDDIR  where it is installed (no install rule if unset)
# The backend links SandboxIO::sdk: the ABI headers and the SDK helpers
# (a static archive: only what the backend calls is linked in).
set(_SBIO_SDK_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

function(sandboxio_add_backend name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT name MATCHES "^[a-z][a-z0-9_]*$" OR name MATCHES "^.{32,}$")
    message(FATAL_ERROR "sandboxio_add_backend: invalid backend name '${name}' ([a-z][a-z0-9_]{0,30})")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "sandboxio_add_backend(${name}): no SOURCES given")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sandboxio_add_backend(${name}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(target sbio-backend-${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME sbio-backend-${name}
    C_VISIBILITY_PRESET hidden)
  if(DEFINED SBIO_BACKEND_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${SBIO_BACKEND_OUTPUT_DIR}")
  endif()
  target_link_options(${target} PRIVATE
    "LINKER:-z,now" "LINKER:-z,defs" "LINKER:-z,relro" "LINKER:--as-needed"
    "LINKER:--version-script=${_SBIO_SDK_CMAKE_DIR}/backend.map")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${_SBIO_SDK_CMAKE_DIR}/backend.map")
  target_link_libraries(${target} PRIVATE SandboxIO::sdk ${ARG_LIBRARIES})
  if(DEFINED SBIO_INSTALL_BACKENDDIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${SBIO_INSTALL_BACKENDDIR} COMPONENT backend-${name})
  endif()
endfunction()
