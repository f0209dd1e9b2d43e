# `vgpusim validate --published lucid DIR --json`: every naive baseline is named in the summary (no_interference,
# half, util_rule, train_mean), with the table by band. DIR: the shipped hand-made fixture, or Lucid's real
# development split where ../shared holds it (the ctest exists only then, decided when CMake configures).
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${VGPUSIM}" validate --published lucid "${DIR}" --json "${WORK}/summary.json"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vgpusim validate --published lucid ${DIR} exited ${rc}: ${err}")
endif()
file(READ "${WORK}/summary.json" summary)
foreach(needle "\"dataset\": \"lucid\"" "\"no_interference\"" "\"half\"" "\"util_rule\"" "\"train_mean\""
               "shipped defaults, no fit, summed solo gpu_util" "busy_exponent fitted on the other families")
  string(FIND "${summary}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no '${needle}' in ${WORK}/summary.json")
  endif()
endforeach()
