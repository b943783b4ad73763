# Find the Wireshark CMake package of a private root (ROCESCOPE_WIRESHARK_ROOT,
# see CMakeLists.txt) and make its imported targets point into that root.
#
# WiresharkConfig.cmake is relocatable (its own paths follow the folder it is
# found in), but its targets name GLib by absolute paths (/usr/include/glib-2.0,
# /usr/lib/<triplet>/libglib-2.0.so): those are moved under the root. Bare
# /usr/include entries are dropped: the system's C library headers stay the
# compiler's own.
get_filename_component(_root "${ROCESCOPE_WIRESHARK_ROOT}" ABSOLUTE)
file(GLOB _ws_configs
     "${_root}/usr/lib/*/cmake/wireshark/WiresharkConfig.cmake"
     "${_root}/usr/lib/*/wireshark/cmake/WiresharkConfig.cmake"
     "${_root}/usr/lib/cmake/wireshark/WiresharkConfig.cmake"
     "${_root}/usr/lib64/cmake/wireshark/WiresharkConfig.cmake")
list(LENGTH _ws_configs _n)
if(NOT _n EQUAL 1)
  message(FATAL_ERROR "ROCESCOPE_WIRESHARK_ROOT=${_root}: expected one WiresharkConfig.cmake "
                      "under ${_root}/usr/lib, found ${_n} (${_ws_configs}); make the root "
                      "with tools/wireshark_root.sh fetch SUITE")
endif()
get_filename_component(_ws_dir "${_ws_configs}" DIRECTORY)
find_package(Wireshark CONFIG REQUIRED PATHS "${_ws_dir}" NO_DEFAULT_PATH)

foreach(_target epan wiretap wsutil)
  if(NOT TARGET ${_target})
    continue()
  endif()
  foreach(_prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
                INTERFACE_LINK_LIBRARIES)
    get_target_property(_values ${_target} ${_prop})
    if(NOT _values)
      continue()
    endif()
    set(_moved "")
    foreach(_v IN LISTS _values)
      if(_v STREQUAL "/usr/include")
        continue()
      elseif(_v MATCHES "^/usr/")
        set(_v "${_root}${_v}")
        if(NOT EXISTS "${_v}")
          message(FATAL_ERROR "${_target} needs ${_v}, which the root lacks (incomplete root?)")
        endif()
      endif()
      list(APPEND _moved "${_v}")
    endforeach()
    list(REMOVE_DUPLICATES _moved)
    set_target_properties(${_target} PROPERTIES ${_prop} "${_moved}")
  endforeach()
endforeach()
message(STATUS "rocescope: Wireshark ${Wireshark_VERSION} from the root ${_root}")
