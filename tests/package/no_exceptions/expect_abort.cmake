# Runs PROGRAM with ARG and passes iff it fails (the no-exceptions handler aborts) after printing
# EXPECTED to stderr.
execute_process(COMMAND ${PROGRAM} ${ARG} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARG} exited normally; expected an abort")
endif()
string(FIND "${err}" "${EXPECTED}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PROGRAM} ${ARG} failed (${rc}) without printing '${EXPECTED}'; stderr:\n${err}")
endif()
message(STATUS "${PROGRAM} ${ARG}: ${rc}, stderr: ${err}")
