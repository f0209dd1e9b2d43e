# docs/scenario-reference.md must be what `vgpusim list keys --markdown` generates from the key tables.
execute_process(COMMAND "${VGPUSIM}" list keys --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vgpusim list keys --markdown exited ${rc}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT generated STREQUAL expected)
  file(MAKE_DIRECTORY "${WORK}")
  file(WRITE "${WORK}/scenario-reference.md" "${generated}")
  execute_process(COMMAND diff -u "${EXPECTED}" "${WORK}/scenario-reference.md" OUTPUT_VARIABLE diff)
  message(FATAL_ERROR "docs/scenario-reference.md is stale; regenerate with "
                      "`build/vgpusim list keys --markdown > docs/scenario-reference.md`:\n${diff}")
endif()
