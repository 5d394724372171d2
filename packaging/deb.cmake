# SPDX-License-Identifier: MIT
# Debian packages with CPack, one per component:
#
#   component      package                       contents
#   lib            libsandboxio0                 libsandboxio.so.0; Provides sandboxio-backend-abi-N
#   cli            sandboxio                     sbio, sbio(1), sandboxio.yaml(5), the config example
#   dev            libsandboxio-dev              headers, .so link, CMake package, .pc files, SDK, kit
#   backend-NAME   sandboxio-backend-NAME        sbio-backend-NAME.so and its conf.d drop-in
#
# A backend depends on the plugin ABI it was built for, the virtual package
# sandboxio-backend-abi-N that the library providing that ABI major
# provides, not on a library version: any later libsandboxio0 of the same
# ABI major loads it.
#
#   cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSBIO_BUILD_TESTS=OFF
#   cmake --build build && (cd build && cpack -G DEB)
#
# Packages install under CMAKE_INSTALL_PREFIX, the prefix the library was
# built for (its configuration directory and backend directory derive from
# it); distribution packages are built with /usr.

file(STRINGS ${PROJECT_SOURCE_DIR}/sdk/include/sandboxio/backend.h SBIO_ABI_LINE
  REGEX "^#define SBIO_BACKEND_ABI_MAJOR [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" SBIO_ABI_MAJOR "${SBIO_ABI_LINE}")
set(SBIO_ABI_PACKAGE sandboxio-backend-abi-${SBIO_ABI_MAJOR})

set(SBIO_PACKAGE_MAINTAINER "sandboxio maintainers <maintainers@sandboxio.invalid>" CACHE STRING
  "Maintainer field of the Debian packages")
set(SBIO_PACKAGE_RELEASE 1 CACHE STRING "Debian revision of the packages")

set(CPACK_PACKAGE_NAME sandboxio)
set(CPACK_PACKAGE_VENDOR sandboxio)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each component description starts with its own one-line summary, so no
# CPACK_PACKAGE_DESCRIPTION_SUMMARY (CPack would put it first in every package).
set(CPACK_PACKAGE_HOMEPAGE_URL "https://docs.sandboxio.dev")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${SBIO_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SBIO_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies from the ELF files (libc6, libcurl4, ...). sbio and
# the kit link libsandboxio, which is in no installed package yet: found in
# the build tree, its dependency is declared by hand below.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib)

set(SBIO_DEB_VERSION "${PROJECT_VERSION}-${SBIO_PACKAGE_RELEASE}")
set(CPACK_COMPONENTS_ALL lib cli dev)

set(CPACK_DEBIAN_LIB_PACKAGE_NAME libsandboxio0)
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIB_PACKAGE_PROVIDES ${SBIO_ABI_PACKAGE})
set(CPACK_COMPONENT_LIB_DESCRIPTION "sandboxio library: run code in sandboxes of any provider
libsandboxio runs code in sandboxes of any provider (Docker, E2B, Daytona,
third parties) through separately installed backends, and makes isolation
strength (container, gVisor, microVM) a reported and enforceable property.
This package provides the backend ABI ${SBIO_ABI_MAJOR} that backend packages depend on.")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME sandboxio)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libsandboxio0 (>= ${SBIO_DEB_VERSION})")
set(CPACK_COMPONENT_CLI_DESCRIPTION "sandboxio command-line tool (sbio)
sbio lists the installed sandbox backends with the isolation tier each
provides, explains how a tier was decided, runs a command in a new sandbox,
validates configuration and removes sandboxes a crashed process left behind.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libsandboxio-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libsandboxio0 (= ${SBIO_DEB_VERSION}), libcjson-dev, libcurl4-openssl-dev | libcurl-dev, pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION "sandboxio development files and backend SDK
Headers and link files of libsandboxio; the backend SDK (the plugin ABI
header, helpers for settings, HTTP, errors and redaction, the CMake package
with sandboxio_add_backend, sandboxio-backend.pc) and the conformance kit
sbio-conformance that checks any backend.")

foreach(backend IN LISTS SBIO_PACKAGED_BACKENDS)
  string(TOUPPER "backend-${backend}" comp)
  list(APPEND CPACK_COMPONENTS_ALL backend-${backend})
  set(CPACK_DEBIAN_${comp}_PACKAGE_NAME sandboxio-backend-${backend})
  set(CPACK_DEBIAN_${comp}_PACKAGE_SECTION misc)
  set(CPACK_DEBIAN_${comp}_PACKAGE_DEPENDS ${SBIO_ABI_PACKAGE})
  set(CPACK_COMPONENT_${comp}_DESCRIPTION "sandboxio backend: ${backend}
The ${backend} backend of sandboxio (sbio-backend-${backend}.so), with its
drop-in configuration ${SBIO_DROPIN_${backend}}.")
  # The drop-in is the operator's to edit: a conffile, kept on upgrade and
  # on removal (purge deletes it).
  set(conffiles ${CMAKE_CURRENT_BINARY_DIR}/conffiles-${backend}/conffiles)
  file(WRITE ${conffiles} "${SBIO_DROPIN_${backend}}\n")
  set(CPACK_DEBIAN_${comp}_PACKAGE_CONTROL_EXTRA ${conffiles})
endforeach()

include(CPack)
