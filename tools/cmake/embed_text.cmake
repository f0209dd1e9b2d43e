# Turns a text file into a C++ source defining `const char* const <SYMBOL>` (default kBuiltinCatalogText).
# Usage: cmake -DINPUT=file -DOUTPUT=file.cpp [-DSYMBOL=kName] -P embed_text.cmake
if(NOT DEFINED SYMBOL)
  set(SYMBOL kBuiltinCatalogText)
endif()
file(READ "${INPUT}" text)
string(FIND "${text}" ")VGPUSIM_EMBED\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by tools/cmake/embed_text.cmake; do not edit.\n"
  "namespace vgpusim {\nextern const char* const ${SYMBOL};\n"
  "const char* const ${SYMBOL} = R\"VGPUSIM_EMBED(${text})VGPUSIM_EMBED\";\n}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
