# tessel_write_if_changed(PATH CONTENT): writes CONTENT to PATH unless PATH
# already holds exactly that, so that a generated header whose value did not
# change keeps its time stamp and recompiles nothing.  Included by the
# build-time scripts hash_headers.cmake and git_commit.cmake.
function(tessel_write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()
