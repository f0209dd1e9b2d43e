# The command line's contract: exit status 2 and FILE:LINE:COL with a did-you-mean for a bad scenario, nothing
# written on failure, 0 for --version and list, 2 for bad arguments.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(READ "${SOURCE}/scenarios/quickstart.yaml" text)
string(REPLACE "duration:" "duratoin:" bad "${text}")
file(WRITE "${WORK}/bad.yaml" "${bad}")

function(expect_run expected_rc pattern)
  execute_process(COMMAND "${VGPUSIM}" ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "vgpusim ${ARGN}: exit ${rc}, expected ${expected_rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "vgpusim ${ARGN}: output does not match '${pattern}'\nstdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

expect_run(2 "bad.yaml:[0-9]+:1: duratoin: unknown key 'duratoin'; did you mean 'duration'\\?"
           run "${WORK}/bad.yaml" --out "${WORK}/out")
if(EXISTS "${WORK}/out")
  message(FATAL_ERROR "a failed run created its output directory")
endif()
expect_run(2 "cannot open the scenario file" run "${WORK}/missing.yaml")
# Outputs are all or nothing: a report that cannot be written (its folder would be inside a regular file) leaves
# no results.json behind; an output path that is a symbolic link is refused and the link left alone.
file(WRITE "${WORK}/plain.txt" "x")
expect_run(2 "plain.txt: cannot create the output directory"
           run "${SOURCE}/scenarios/quickstart.yaml" --out "${WORK}/all" --write html=${WORK}/plain.txt/report.html)
if(EXISTS "${WORK}/all/results.json")
  message(FATAL_ERROR "a failed output left results.json written")
endif()
file(CREATE_LINK "${WORK}/plain.txt" "${WORK}/link.json" SYMBOLIC)
expect_run(2 "link.json: a symbolic link exists there; outputs replace only regular files"
           run "${SOURCE}/scenarios/quickstart.yaml" --write json=${WORK}/link.json)
if(NOT IS_SYMLINK "${WORK}/link.json")
  message(FATAL_ERROR "an output replaced a symbolic link")
endif()
expect_run(2 "sharing.g0.slice: expected a time such as '2ms', found '3'"
           run "${SOURCE}/scenarios/quickstart.yaml" --set sharing.g0.slice=3)
expect_run(2 "fidelity" run "${SOURCE}/scenarios/quickstart.yaml" --fidelity approximate)
expect_run(2 "" frobnicate)
# Two outputs to one file, a --set value that is not YAML, --fail-on on a cluster study: bad input, exit 2.
expect_run(2 "two outputs \\(json and json\\) would be written to this file"
           run "${SOURCE}/scenarios/quickstart.yaml" --out "${WORK}/twice" --write json=${WORK}/twice/results.json)
expect_run(2 "--set sharing.g0:1:[0-9]+: YAML syntax error"
           run "${SOURCE}/scenarios/quickstart.yaml" "--set=sharing.g0={mode: mps")
expect_run(2 "--fail-on applies to GPU-level scenarios, not to cluster scenarios"
           run "${SOURCE}/scenarios/cluster-small.yaml" --fail-on failure)
# A tenant that fails is a warning on stderr even with -q; --fail-on failure makes it exit 3.
expect_run(0 "warning: tenant chat failed at .*out of memory"
           run "${SOURCE}/scenarios/quickstart.yaml" --set tenants.finetune.memory=79GiB -q)
expect_run(3 "warning: tenant chat failed"
           run "${SOURCE}/scenarios/quickstart.yaml" --set tenants.finetune.memory=79GiB -q --fail-on failure,slo)
# A run estimated above the limits is refused before it runs, with the numbers and the option that raises them.
expect_run(2 "would take about [0-9.e+]+ engine events .* raise the limit with --max-events"
           run "${SOURCE}/scenarios/quickstart.yaml" --set duration=1e9s)
expect_run(2 "utilization bins per GPU: widen `metrics.interval`"
           run "${SOURCE}/scenarios/quickstart.yaml" --set metrics.interval=1ns)
expect_run(2 "above the limit of 1e\\+03: " run "${SOURCE}/scenarios/quickstart.yaml" --max-events 1000)
expect_run(2 "--max-memory 1x: expected a size such as" run "${SOURCE}/scenarios/quickstart.yaml" --max-memory 1x)
expect_run(2 "above the limit of 1e\\+03: " sweep "${SOURCE}/scenarios/quickstart.yaml" --vary seed=1,2 --max-events 1000)
# An out-of-memory failure with --fail-on oom; a queue that keeps growing is a warning, and --fail-on warning exits 3.
expect_run(3 "out of memory" run "${SOURCE}/scenarios/quickstart.yaml" --set tenants.finetune.memory=79GiB -q
           --fail-on oom)
expect_run(0 "warning: tenant chat: the request queue does not reach a steady state"
           run "${SOURCE}/scenarios/quickstart.yaml" --set tenants.chat.workload.inference.rate=160/s --set duration=4s
           --set replications=1 -q)
expect_run(3 "warning: tenant chat: the request queue does not reach a steady state"
           run "${SOURCE}/scenarios/quickstart.yaml" --set tenants.chat.workload.inference.rate=160/s --set duration=4s
           --set replications=1 -q --fail-on warning)
# A synthetic raw file's noise must be a relative noise: NaN, negative or huge values are refused.
expect_run(2 "--noise nan: expected a relative noise from 0 to 0.5" synth-raw H200 -o "${WORK}/s.json" --noise nan)
expect_run(2 "--noise 1e\\+308: expected a relative noise" synth-raw H200 -o "${WORK}/s.json" --noise 1e308)
expect_run(2 "--noise -0.1: expected" synth-raw H200 -o "${WORK}/s.json" --noise -0.1)
# More plan threads than the system can start is a bad argument, not an abort.
expect_run(2 "--threads: Value 100000 not in range" plan "${SOURCE}/scenarios/plan-inference.yaml" --threads 100000)
expect_run(0 "vgpusim [0-9]+\\.[0-9]+\\.[0-9]+" --version)
expect_run(0 "Examples:" --help)
expect_run(0 "H100-SXM" list gpus)
expect_run(0 "timeslice" list models)
expect_run(0 "switch_cost" list keys --markdown)
expect_run(0 "finetune" run "${SOURCE}/scenarios/quickstart.yaml" --set sharing.g0.slice=4ms --seed 3)
# Published validation and calibration: bad names and folders are input errors.
expect_run(2 "unknown dataset 'nope'; known: gavel, migperf, gpu-benches, vidur, lucid, neusight, or all"
           validate --published nope "${SOURCE}/scenarios/measurements")
expect_run(2 "not a folder" validate --published gavel "${WORK}/missing")
expect_run(2 "give a raw file, or --published NAME DIR" validate)
expect_run(2 "--gpu H2000: not a catalog GPU" validate --published vidur "${SOURCE}/scenarios/measurements" --gpu H2000)
expect_run(2 "give a raw file, or --gpu-benches DIR" fit)
expect_run(2 "expected the gpu-benches folders" fit --gpu-benches "${SOURCE}/scenarios/measurements")
expect_run(0 "migperf +A100-80GB +no fit +69" validate --published migperf "${SOURCE}/scenarios/measurements/migperf")
expect_run(0 "roofline.memory_efficiency" fit --gpu-benches "${SOURCE}/scenarios/measurements/gpu-benches")
