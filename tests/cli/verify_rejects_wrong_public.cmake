# Tampers with the example's public.json two ways and checks `cuzk verify`'s exit codes:
# 0 for the untouched files, 1 when the first public input is another valid value (a
# well-formed proof that does not verify), 2 when it is not below r (bad input).
file(READ ${DIR}/public.json text)
string(REGEX REPLACE "^(\\[[^\"]*)\"[0-9]+\"" "\\1\"1\"" wrong_value "${text}")
string(REGEX REPLACE "^(\\[[^\"]*)\"([0-9]+)\"" "\\1\"9\\2\"" too_large "${text}")
if(wrong_value STREQUAL text OR too_large STREQUAL text)
  message(FATAL_ERROR "could not tamper with ${DIR}/public.json")
endif()
file(WRITE ${DIR}/public_wrong_value.json "${wrong_value}")
file(WRITE ${DIR}/public_too_large.json "${too_large}")

function(expect_exit public expected)
  execute_process(COMMAND ${CUZK} verify ${DIR}/verification_key.json ${public}
                          ${DIR}/proof.json RESULT_VARIABLE rc)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "cuzk verify with ${public}: exit ${rc}, expected ${expected}")
  endif()
endfunction()
expect_exit(${DIR}/public.json 0)
expect_exit(${DIR}/public_wrong_value.json 1)
expect_exit(${DIR}/public_too_large.json 2)
