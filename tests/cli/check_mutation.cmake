# The mutation campaign (tools/mutate-inputs.py) for a short budget: every input reader of the command line, fed
# mutated inputs, must exit 0, 2, 3 or 4 and never crash, hang, run out of memory or leave partial outputs.
# cmake -DVGPUSIM=... -DSOURCE=... -DWORK=... [-DBUDGET=seconds (60)] [-DMEMORY_LIMIT=MiB (4096; 0 under ASan)] -P
find_program(PYTHON3 NAMES python3)
if(NOT PYTHON3)
  message(FATAL_ERROR "python3 not found: the mutation campaign needs it")
endif()
if(NOT DEFINED BUDGET)
  set(BUDGET 60)
endif()
if(NOT DEFINED MEMORY_LIMIT)
  set(MEMORY_LIMIT 4096)
endif()
execute_process(COMMAND "${PYTHON3}" "${SOURCE}/tools/mutate-inputs.py" --vgpusim "${VGPUSIM}" --source "${SOURCE}"
                        --work "${WORK}" --budget ${BUDGET} --memory-limit ${MEMORY_LIMIT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the mutation campaign exited ${rc}: inputs and repro.sh of each defect in ${WORK}/findings")
endif()
