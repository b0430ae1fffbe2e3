# Runs at install time (install(SCRIPT)): installs the config, the environment file and
# the systemd units (the service, and its socket for socket activation) under the folders of the install prefix, and writes the unit's
# ExecStart and EnvironmentFile paths for that prefix. SCX_DEPLOY_DIR (the sources) and
# SCX_DEPLOY_BINARY_DIR (where the unit is staged) are set by deploy/CMakeLists.txt.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(etc_dir /etc)
  set(unit_dir /lib/systemd/system)
else()
  set(etc_dir ${CMAKE_INSTALL_PREFIX}/etc)
  set(unit_dir ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
endif()

file(INSTALL ${SCX_DEPLOY_DIR}/config.yml DESTINATION ${etc_dir}/skeleton-coherence-exporter
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL ${SCX_DEPLOY_DIR}/systemd/skeleton-coherence-exporter.default
     DESTINATION ${etc_dir}/default RENAME skeleton-coherence-exporter
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

file(READ ${SCX_DEPLOY_DIR}/systemd/skeleton-coherence-exporter.service unit)
string(REPLACE "/usr/bin/" "${CMAKE_INSTALL_PREFIX}/bin/" unit "${unit}")
string(REPLACE "/etc/" "${etc_dir}/" unit "${unit}")
string(REPLACE "/usr/share/" "${CMAKE_INSTALL_PREFIX}/share/" unit "${unit}")
# Staged per destination, so that concurrent installs (the tests) do not share it.
string(MD5 destination "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(staged_unit ${SCX_DEPLOY_BINARY_DIR}/unit-${destination}/skeleton-coherence-exporter.service)
file(WRITE ${staged_unit} "${unit}")
file(INSTALL ${staged_unit} DESTINATION ${unit_dir}
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
# The socket unit (socket activation, not enabled): its documentation path follows too.
file(READ ${SCX_DEPLOY_DIR}/systemd/skeleton-coherence-exporter.socket socket_unit)
string(REPLACE "/usr/share/" "${CMAKE_INSTALL_PREFIX}/share/" socket_unit "${socket_unit}")
set(staged_socket ${SCX_DEPLOY_BINARY_DIR}/unit-${destination}/skeleton-coherence-exporter.socket)
file(WRITE ${staged_socket} "${socket_unit}")
file(INSTALL ${staged_socket} DESTINATION ${unit_dir}
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(REMOVE_RECURSE ${SCX_DEPLOY_BINARY_DIR}/unit-${destination})
