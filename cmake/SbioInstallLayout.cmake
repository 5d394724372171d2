# SPDX-License-Identifier: MIT
# Install rules that follow the install prefix given at install time
# (`cmake --install build --prefix P`), not only the one configured, so an
# install lands where the library will look for it (core/src/install_layout.h):
#
#   sbio_install_sysconf(FILES f... SUBDIR sandboxio/conf.d COMPONENT c)
#       into SYSCONFDIR/SUBDIR of the install prefix: /etc for /usr (and /),
#       /etc/opt/NAME for /opt/NAME, PREFIX/etc otherwise; an absolute
#       CMAKE_INSTALL_SYSCONFDIR is kept. DESTDIR is honoured.
#   sbio_install_pkgconfig(TEMPLATE file.pc.in NAME name COMPONENT c)
#       LIBDIR/pkgconfig/NAME.pc. Installed under /usr it says prefix=/usr
#       (pkg-config drops its own system directories only when spelled so);
#       anywhere else prefix=${pcfiledir}/.., relative to the file itself, so
#       the install may be made with --prefix or moved. The template uses
#       @SBIO_PC_PREFIX@ for the prefix.

function(sbio_install_sysconf)
  cmake_parse_arguments(ARG "" "SUBDIR;COMPONENT" "FILES" ${ARGN})
  set(files "")
  foreach(f IN LISTS ARG_FILES)
    get_filename_component(f "${f}" ABSOLUTE)
    string(APPEND files " \"${f}\"")
  endforeach()
  install(CODE "
    string(REGEX REPLACE \"/+$\" \"\" _sbio_prefix \"\${CMAKE_INSTALL_PREFIX}\")
    set(_sbio_sysconfdir \"${CMAKE_INSTALL_SYSCONFDIR}\")
    if(IS_ABSOLUTE \"\${_sbio_sysconfdir}\")
    elseif(_sbio_prefix STREQUAL \"\" OR _sbio_prefix STREQUAL \"/usr\")
      set(_sbio_sysconfdir \"/\${_sbio_sysconfdir}\")
    elseif(_sbio_prefix MATCHES \"^/opt/.\")
      set(_sbio_sysconfdir \"/\${_sbio_sysconfdir}\${_sbio_prefix}\")
    else()
      set(_sbio_sysconfdir \"\${_sbio_prefix}/\${_sbio_sysconfdir}\")
    endif()
    file(INSTALL DESTINATION \"\${_sbio_sysconfdir}/${ARG_SUBDIR}\" TYPE FILE FILES${files})
  " COMPONENT ${ARG_COMPONENT})
endfunction()

function(sbio_install_pkgconfig)
  cmake_parse_arguments(ARG "" "TEMPLATE;NAME;COMPONENT" "" ${ARGN})
  set(dir ${PROJECT_BINARY_DIR}/pkgconfig)
  # At /usr.
  set(SBIO_PC_PREFIX /usr)
  configure_file(${ARG_TEMPLATE} ${dir}/system/${ARG_NAME}.pc @ONLY)
  # Anywhere else: from LIBDIR/pkgconfig back up to the prefix.
  file(RELATIVE_PATH up ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
  string(REGEX REPLACE "/$" "" up "${up}")
  set(SBIO_PC_PREFIX "\${pcfiledir}/${up}")
  configure_file(${ARG_TEMPLATE} ${dir}/relocatable/${ARG_NAME}.pc @ONLY)
  install(CODE "
    string(REGEX REPLACE \"/+$\" \"\" _sbio_prefix \"\${CMAKE_INSTALL_PREFIX}\")
    if(_sbio_prefix STREQUAL \"/usr\")
      set(_sbio_pc \"${dir}/system/${ARG_NAME}.pc\")
    else()
      set(_sbio_pc \"${dir}/relocatable/${ARG_NAME}.pc\")
    endif()
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\" TYPE FILE FILES \"\${_sbio_pc}\")
  " COMPONENT ${ARG_COMPONENT})
endfunction()

# sbio_install_rpath(TARGET FROM): the run path an installed program, in
# PREFIX/FROM, needs to find libsandboxio: relative ($ORIGIN), so an install
# made with --prefix may be moved; none when LIBDIR is a directory the
# dynamic linker searches anyway (/usr/lib/<multiarch>), where distributions
# forbid a run path.
function(sbio_install_rpath target from)
  list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" system)
  if(system GREATER -1)
    return()
  endif()
  file(RELATIVE_PATH rel ${CMAKE_INSTALL_PREFIX}/${from} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${rel}")
endfunction()
