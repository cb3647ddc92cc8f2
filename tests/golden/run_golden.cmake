# Runs one golden case: kvcalc ARGS must exit with STATUS, print exactly EXPECTED on
# stdout and nothing on stderr. ARGS are shell words (no quoting needed in our cases).
separate_arguments(argv UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${KVCALC} ${argv}
                OUTPUT_FILE ${ACTUAL}
                ERROR_VARIABLE err
                RESULT_VARIABLE status)
set(failed "")
if(NOT status STREQUAL STATUS)
  string(APPEND failed "exit status ${status}, expected ${STATUS}\n")
endif()
if(NOT err STREQUAL "")
  string(APPEND failed "unexpected stderr: ${err}\n")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL}
                RESULT_VARIABLE differs)
if(differs)
  find_program(DIFF diff)
  if(DIFF)
    execute_process(COMMAND ${DIFF} -u ${EXPECTED} ${ACTUAL} OUTPUT_VARIABLE d)
    string(APPEND failed "stdout differs from ${EXPECTED}:\n${d}")
  else()
    string(APPEND failed "stdout differs from ${EXPECTED}\n")
  endif()
endif()
if(failed)
  message(FATAL_ERROR "kvcalc ${ARGS}\n${failed}")
endif()
