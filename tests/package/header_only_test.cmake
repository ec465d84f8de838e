# Compiles SOURCE against INCLUDE alone in strict ISO C++17 with -Werror, then runs it.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CXX} -std=c++17 -pedantic -Wall -Wextra -Wconversion -Wshadow -Werror
                        -I${INCLUDE} ${SOURCE} -o ${WORK}/oracle
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the header-only oracle does not compile standalone (rc=${rc})")
endif()
execute_process(COMMAND ${WORK}/oracle RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the header-only oracle computed wrong values (rc=${rc})")
endif()
