# `vgpusim validate --published lucid DIR --json`: every naive baseline is named in the summary (no_interference,
# half, util_rule, train_mean), with the table by band. DIR: the shipped hand-made fixture, or Lucid's real
# development split where ../shared holds it (the ctest exists only then, decided when CMake configures). Then the
# two analyses outside the simulator that docs/models/telemetry-workload.md quotes (tools/lucid-meanfield.py and
# tools/lucid-ceiling.py, the latter reading the cases just written) run on the same files and print their lines.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${VGPUSIM}" validate --published lucid "${DIR}" --json "${WORK}/summary.json"
                        --cases "${WORK}/cases.csv"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vgpusim validate --published lucid ${DIR} exited ${rc}: ${err}")
endif()
file(READ "${WORK}/summary.json" summary)
foreach(needle "\"dataset\": \"lucid\"" "\"no_interference\"" "\"half\"" "\"util_rule\"" "\"train_mean\""
               "shipped defaults, no fit, summed solo gpu_util" "busy_exponent fitted on the other families"
               "busy_exponent fitted on all the pairs (in sample)")
  string(FIND "${summary}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no '${needle}' in ${WORK}/summary.json")
  endif()
endforeach()
# On the real pairs (BEAT_BASELINES): the model fitted on the other families beats every naive baseline on the whole
# set and in every band of summed solo gpu_util, and a scenario's job with one profile (the trust band) beats the
# utilization rule on the whole set: a model that loses to a one-line rule is a bug. And the shipped busy_exponent is
# still what its documented source says, the grid value with the smallest error over all the pairs (the in-sample
# split's error is the shipped split's).
if(BEAT_BASELINES)
  string(JSON rows LENGTH "${summary}")
  math(EXPR last "${rows} - 1")
  set(checked 0)
  set(shipped_mape "")
  set(in_sample_mape "")
  foreach(i RANGE ${last})
    string(JSON split GET "${summary}" ${i} split)
    string(JSON mape GET "${summary}" ${i} mape)
    if(split STREQUAL "shipped defaults, no fit")
      set(shipped_mape "${mape}")
    elseif(split STREQUAL "busy_exponent fitted on all the pairs (in sample)")
      set(in_sample_mape "${mape}")
    elseif(split MATCHES "^busy_exponent fitted on the other families(, summed solo gpu_util .*)?$")
      string(JSON names LENGTH "${summary}" ${i} baseline)
      math(EXPR names_last "${names} - 1")
      foreach(k RANGE ${names_last})
        string(JSON name MEMBER "${summary}" ${i} baseline ${k})
        string(JSON base GET "${summary}" ${i} baseline ${name})
        if(NOT mape LESS base)
          message(FATAL_ERROR "lucid '${split}': MAPE ${mape}% is not below ${name}'s ${base}%")
        endif()
      endforeach()
      math(EXPR checked "${checked} + 1")
    elseif(split MATCHES "one profile per job \\(host phase serial\\)$")
      string(JSON rule GET "${summary}" ${i} baseline util_rule)
      if(NOT mape LESS rule)
        message(FATAL_ERROR "lucid '${split}': MAPE ${mape}% is not below util_rule's ${rule}%")
      endif()
      math(EXPR checked "${checked} + 1")
    endif()
  endforeach()
  if(shipped_mape STREQUAL "" OR in_sample_mape STREQUAL "")
    message(FATAL_ERROR "no whole-set row of the shipped or the in-sample split in ${WORK}/summary.json")
  endif()
  if(NOT shipped_mape EQUAL in_sample_mape)
    message(FATAL_ERROR "the shipped measured.busy_exponent is no longer the grid value with the smallest error over "
                        "all the Lucid pairs (shipped ${shipped_mape}%, in sample ${in_sample_mape}%: the in-sample "
                        "split's case ids name its value): refit the default and its source "
                        "(models/workload/telemetry.cpp, docs/models/telemetry-workload.md)")
  endif()
  if(NOT checked EQUAL 6)
    message(FATAL_ERROR "expected the fitted split on the whole set and in 4 bands and the one-profile split (6 rows), "
                        "checked ${checked}")
  endif()
endif()

# The analyses outside the simulator (PYTHON, TOOLS: the interpreter and the source tree's tools/), each with a line
# its output must have: they start from as many job-speeds as the validation predicts (the same pairs left out).
string(JSON cases GET "${summary}" 0 cases)
function(check_tool script expected)
  execute_process(COMMAND "${PYTHON}" "${TOOLS}/${script}" ${ARGN}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tools/${script} ${ARGN} exited ${rc}: ${err}")
  endif()
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "tools/${script}: no line matching '${expected}' in its output")
  endif()
endfunction()
check_tool(lucid-meanfield.py "^${cases} job-speeds, busy_per_util by family folds: random interleaving [0-9.]+%"
           "${DIR}")
set(own "nearest in solo gpu_util, of any family: k=1 [0-9.]+%")
set(per_job "busy_exponent fitted on the other families: [0-9.]+% over ${cases} job-speeds, [0-9.]+% with each job's \
mean signed error divided out, [0-9.]+% with each job's and each partner's")
set(features "\n  its signed error fitted on the solo telemetry of the training folds and divided out, held out: \
the mean [0-9.]+%[^,]*, precision [0-9.]+%[^,]*, gpu_util [0-9.]+%[^,]*, memory [0-9.]+%[^,]*, all of them [0-9.]+%")
check_tool(lucid-ceiling.py "^${cases} job-speeds; util rule [0-9.]+%.*${own}.*\n${per_job}[^\n]*${features}"
           "${DIR}" --cases "${WORK}/cases.csv" --features)
