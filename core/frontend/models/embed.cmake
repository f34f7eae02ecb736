# Wraps a C source in a C++ raw string literal: cmake -DIN=file.c -DOUT=file.inc -P embed.cmake
file(READ "${IN}" _text)
file(WRITE "${OUT}.tmp" "R\"ARGUS_MODELS(${_text})ARGUS_MODELS\"\n")
file(RENAME "${OUT}.tmp" "${OUT}")
