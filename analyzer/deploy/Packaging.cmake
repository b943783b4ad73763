# The Debian packages (CPack DEB, one per component), from the install rules
# of analyzer/cli, dissector and this folder. Architecture: dpkg's;
# dependencies: dpkg-shlibdeps over the binaries, plus what the maintainer
# scripts use. Native version (no Debian revision): PROJECT_VERSION, which
# debian/changelog's latest entry must carry.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rocescope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "rocescope")
set(CPACK_PACKAGE_CONTACT "${ROCESCOPE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
if(_plugin_package)
  list(APPEND CPACK_COMPONENTS_ALL plugin)
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ROCESCOPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SOURCE rocescope)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# rocescope: the command, its manual page and completion, the service, the
# monitoring rules and dashboard.
set(CPACK_DEBIAN_CLI_PACKAGE_NAME rocescope)
# libmicrohttpd is loaded for --listen (analyzer/live/http.c), not linked, so
# dpkg-shlibdeps does not see it: its package named here, the one that holds
# the library on the build machine (libmicrohttpd12 on Debian 12)
set(ROCESCOPE_MHD_PACKAGE libmicrohttpd12)
find_library(ROCESCOPE_MHD_SO NAMES libmicrohttpd.so.12)
if(ROCESCOPE_MHD_SO)
  get_filename_component(ROCESCOPE_MHD_REAL "${ROCESCOPE_MHD_SO}" REALPATH)
  execute_process(COMMAND dpkg-query -S "${ROCESCOPE_MHD_REAL}" OUTPUT_VARIABLE ROCESCOPE_MHD_OWNER
                  ERROR_QUIET RESULT_VARIABLE ROCESCOPE_MHD_RC)
  if(ROCESCOPE_MHD_RC EQUAL 0 AND ROCESCOPE_MHD_OWNER MATCHES "^([^:, ]+)")
    set(ROCESCOPE_MHD_PACKAGE "${CMAKE_MATCH_1}")
  endif()
endif()
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "adduser, ${ROCESCOPE_MHD_PACKAGE}")
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "prometheus-node-exporter")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "prometheus, rocescope-wireshark-plugin")
set(CPACK_DEBIAN_CLI_PACKAGE_CONTROL_EXTRA
    "${CMAKE_CURRENT_SOURCE_DIR}/debian/postinst;${CMAKE_CURRENT_SOURCE_DIR}/debian/prerm;${CMAKE_CURRENT_SOURCE_DIR}/debian/postrm;${CMAKE_CURRENT_SOURCE_DIR}/debian/conffiles")
set(CPACK_COMPONENT_CLI_DESCRIPTION
    "RoCE traffic analyser and live monitor for mirror ports
rocescope analyses RoCE (RDMA over Converged Ethernet) traffic: PSN gaps and
where packets were lost, go-back-N episodes and their triggers, NAKs by code,
ECN CE marks and the CNPs that answer them, PFC/PAUSE time per priority and
pause storms, bad ICRCs. It reads pcap and pcapng captures (text and JSON
reports, per-frame verdicts, merging of reports, loss location across
vantage points) and watches a mirrored port live (rocescope -i), writing a
Prometheus textfile, serving /metrics over HTTP and streaming its verdicts
as JSON Lines.

This package has the rocescope command, its manual page and bash completion,
the systemd template unit rocescope@.service (one monitor per interface,
sandboxed, run as the system user rocescope), and Prometheus alerting rules
and a Grafana dashboard in /usr/share/rocescope.")

# rocescope-wireshark-plugin: the plugin, for the Wireshark it was built
# against (its libwireshark, by dpkg-shlibdeps).
set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME rocescope-wireshark-plugin)
set(CPACK_DEBIAN_PLUGIN_PACKAGE_ENHANCES "wireshark, tshark")
set(CPACK_COMPONENT_PLUGIN_DESCRIPTION
    "RoCE analysis plugin for Wireshark and tshark
The rocescope engine inside Wireshark ${ROCESCOPE_WIRESHARK_PLUGIN_SUBDIR}: the same per-frame
verdicts as the rocescope command on every RoCE packet (PSN gaps,
retransmissions and go-back-N episodes, NAKs, CE marks and CNPs, bad ICRCs)
as display filter fields, expert info and Info column labels, a RoCE tab in
Conversations and Endpoints, the RoCE Flows table (-z roce,flows) and coloring
rules (in /usr/share/doc/rocescope-wireshark-plugin/examples).")

include(CPack)
