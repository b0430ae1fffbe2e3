# The Debian package, built from an existing build tree with
#   cpack --config <build>/CPackConfig.cmake -G DEB
# (tests/deploy/package_test.sh). Version from project(VERSION); Depends computed from
# the binary's shared libraries by dpkg-shlibdeps; the binary is stripped.
set(CPACK_PACKAGE_NAME ${SCX_PACKAGE_NAME})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "skeleton-coherence-exporter developers")
set(CPACK_PACKAGE_CONTACT "skeleton-coherence-exporter developers <maintainers@skeleton-coherence-exporter.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Prometheus exporter for m1nd skeleton coherence")
set(CPACK_PACKAGE_DESCRIPTION
    "Watches m1nd brains and raises an alarm when a brain serves a skeleton that is\n"
    "not its own. It scans every brain it finds on a timer, computes the coherence\n"
    "verdict with m1nd's own slug rules and exports it to Prometheus. It only reads.\n"
    "\n"
    "The package ships a hardened systemd unit, enabled and started, which watches\n"
    "nothing until configured, the alert rules, an Alertmanager example and a\n"
    "Grafana dashboard.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")  # list -> text
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
# Install into the staging folder with DESTDIR and the prefix /usr, so that the
# install script puts the config in /etc and the unit in /lib/systemd/system.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The maintainer scripts call adduser and init-system-helpers' deb-systemd-helper and
# deb-systemd-invoke (1.54 is what debhelper's dh_installsystemd asks for).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, init-system-helpers (>= 1.54~)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus, prometheus-alertmanager")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# Maintainer scripts (system user, unit enabled and started like debhelper's) and the
# conffiles list, which names the files under /etc.
set(scx_conffiles ${CMAKE_CURRENT_BINARY_DIR}/conffiles)
file(WRITE ${scx_conffiles}
     "/etc/default/skeleton-coherence-exporter\n/etc/skeleton-coherence-exporter/config.yml\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${scx_conffiles}
    ${CMAKE_CURRENT_SOURCE_DIR}/debian/postinst
    ${CMAKE_CURRENT_SOURCE_DIR}/debian/prerm
    ${CMAKE_CURRENT_SOURCE_DIR}/debian/postrm)

# Debian wants a changelog in every package: one entry for this version, gzipped. It
# names the git revision, so it is written at every build, as build_info.h is.
set(scx_changelog ${CMAKE_CURRENT_BINARY_DIR}/changelog.Debian)
add_custom_target(scx_changelog ALL
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DTEMPLATE=${CMAKE_CURRENT_SOURCE_DIR}/debian/changelog.in -DOUTPUT=${scx_changelog}
          -DGZIP=ON -DPROJECT_VERSION=${PROJECT_VERSION}
          -DCPACK_DEBIAN_PACKAGE_RELEASE=${CPACK_DEBIAN_PACKAGE_RELEASE}
          -DCPACK_PACKAGE_CONTACT=${CPACK_PACKAGE_CONTACT}
          -P ${CMAKE_SOURCE_DIR}/cmake/write_revision_file.cmake
  BYPRODUCTS ${scx_changelog} ${scx_changelog}.gz
  VERBATIM)
scx_require_built(${scx_changelog}.gz)
install(FILES ${scx_changelog}.gz DESTINATION ${SCX_DOC_DIR})

include(CPack)
