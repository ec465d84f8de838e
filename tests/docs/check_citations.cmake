# Checks that every citation of the project's semantics document resolves.
#
#   cmake -DROOT=<source directory> [-DEXCLUDE=<directory>] -P tests/docs/check_citations.cmake
#
# ROOT defaults to the directory two levels above this script. EXCLUDE is a directory inside ROOT
# to skip as well (the ctest passes the build directory). Scans every .h, .cc, .md, .txt and
# .cmake file under ROOT except .git, build* directories, CMakeFiles and _deps, and fails, naming
# file:line, when
#   * a citation "docs/semantics.md" followed by section numbers names a section that has no
#     heading in docs/semantics.md. The numbers checked are the first one after the path (with or
#     without a section sign: strings the tool prints are ASCII, "docs/semantics.md 14.3") and
#     every section-sign number after it on the same line (lists such as "§2.4, §3.5", both ends
#     of ranges such as "§2.1-2.3" or "§1-§3"); a citation broken after the path continues on the
#     next line;
#   * a citation without the "docs/" prefix remains (the document once lived outside the
#     repository; such citations do not resolve inside it);
#   * inside docs/semantics.md itself, a section-sign reference names a missing section, or two
#     headings carry the same number.
# Headings are Markdown headings whose text starts with the section number: "## 11. Test vectors",
# "### 11.1 Ties ...".
cmake_minimum_required(VERSION 3.16)

if(NOT DEFINED ROOT OR ROOT STREQUAL "")
  get_filename_component(ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)
set(doc_rel "docs/semantics.md")
set(doc "${ROOT}/${doc_rel}")
if(NOT EXISTS "${doc}")
  message(FATAL_ERROR "check_citations: ${doc} does not exist (ROOT = ${ROOT})")
endif()

set(sect "§")                                     # the section sign (UTF-8: C2 A7)
set(num "[0-9]+(\\.[0-9]+)*")                      # a section number: 11, 11.1, 0.4
set(token "${sect}${num}(-(${sect})?${num})?")     # §11.1, §2.1-2.3, §1-§3
set(marker "@QPARITY_DOC_CITATION@")               # stands for the path while a line is parsed

# Reads a file into a list of lines (one element per line, empty lines kept). Characters that
# would change how CMake splits or escapes a list are replaced first: ; [ ] and backslash.
function(read_lines path out)
  file(READ "${path}" text)
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Appends "<number>" for each section number in `text` (tokens such as §2.1-2.3 give both ends).
function(section_numbers text out)
  set(result "")
  string(REGEX MATCHALL "${token}" found "${text}")
  foreach(t IN LISTS found)
    string(REPLACE "${sect}" "" t "${t}")
    string(REPLACE "-" ";" ends "${t}")
    list(APPEND result ${ends})
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# ---- the sections docs/semantics.md defines ------------------------------------------------------
read_lines("${doc}" doc_lines)
set(sections "")
set(errors "")
set(n 0)
foreach(line IN LISTS doc_lines)
  math(EXPR n "${n} + 1")
  if(line MATCHES "^#+[ \t]+(${num})\\.?([ \t]|$)")
    set(s "${CMAKE_MATCH_1}")
    if(s IN_LIST sections)
      list(APPEND errors "${doc_rel}:${n}: a second heading numbered ${s}")
    endif()
    list(APPEND sections "${s}")
  endif()
endforeach()
list(LENGTH sections section_count)
if(section_count EQUAL 0)
  message(FATAL_ERROR "check_citations: no numbered headings found in ${doc}")
endif()

# ---- the files to scan -----------------------------------------------------------------------------
set(excluded_re "(^|/)(\\.git|build[^/]*|CMakeFiles|_deps)(/|$)")
set(exclude_prefix "")
if(DEFINED EXCLUDE AND NOT EXCLUDE STREQUAL "")
  get_filename_component(ex "${EXCLUDE}" ABSOLUTE)
  file(RELATIVE_PATH ex_rel "${ROOT}" "${ex}")
  if(NOT ex_rel STREQUAL "" AND NOT ex_rel MATCHES "^\\.\\.")
    set(exclude_prefix "${ex_rel}/")
  endif()
endif()

set(files "")
file(GLOB top LIST_DIRECTORIES true RELATIVE "${ROOT}" "${ROOT}/*")
foreach(entry IN LISTS top)
  if(entry MATCHES "${excluded_re}")
    continue()
  endif()
  if(IS_DIRECTORY "${ROOT}/${entry}")
    if(exclude_prefix AND "${entry}/" STREQUAL exclude_prefix)
      continue()
    endif()
    file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${ROOT}"
         "${ROOT}/${entry}/*.h" "${ROOT}/${entry}/*.cc" "${ROOT}/${entry}/*.md"
         "${ROOT}/${entry}/*.txt" "${ROOT}/${entry}/*.cmake")
    list(APPEND files ${found})
  elseif(entry MATCHES "\\.(h|cc|md|txt|cmake)$")
    list(APPEND files "${entry}")
  endif()
endforeach()

# ---- the citations -------------------------------------------------------------------------------
set(checked 0)
set(citing_files 0)
foreach(rel IN LISTS files)
  if(rel MATCHES "${excluded_re}")
    continue()
  endif()
  if(exclude_prefix)
    string(FIND "${rel}" "${exclude_prefix}" at)
    if(at EQUAL 0)
      continue()
    endif()
  endif()
  file(READ "${ROOT}/${rel}" text)
  string(FIND "${text}" "semantics.md" at)
  set(is_doc FALSE)
  if(rel STREQUAL doc_rel)
    set(is_doc TRUE)
  elseif(at EQUAL -1)
    continue()
  endif()
  math(EXPR citing_files "${citing_files} + 1")
  read_lines("${ROOT}/${rel}" lines)
  list(LENGTH lines line_count)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    # The next line, without comment leaders, for citations broken after the path.
    set(next "")
    if(n LESS line_count)
      list(GET lines ${n} next)
      if(next MATCHES "^[ \t]*(///|//|#|\\*|--)?[ \t]*(.*)$")
        set(next "${CMAKE_MATCH_2}")
      endif()
    endif()

    if(is_doc)
      # References inside the document: every numbered section sign must resolve.
      section_numbers("${line}" refs)
      foreach(s IN LISTS refs)
        math(EXPR checked "${checked} + 1")
        if(NOT s IN_LIST sections)
          list(APPEND errors "${rel}:${n}: refers to ${sect}${s}, which has no heading")
        endif()
      endforeach()
      continue()
    endif()

    string(FIND "${line}" "semantics.md" at)
    if(at EQUAL -1)
      continue()
    endif()
    string(REPLACE "docs/semantics.md" "${marker}" marked "${line}")

    # A citation without the docs/ prefix.
    if(marked MATCHES "semantics\\.md[ \t]*(${sect}|[0-9])" OR
       (marked MATCHES "semantics\\.md[ \t]*$" AND next MATCHES "^(${sect}|[0-9])"))
      list(APPEND errors "${rel}:${n}: cites semantics.md without the docs/ prefix (write ${doc_rel})")
    endif()

    # Citations of docs/semantics.md: the first number after the path, then every section sign.
    string(FIND "${marked}" "${marker}" at)
    if(at EQUAL -1)
      continue()
    endif()
    string(LENGTH "${marker}" marker_length)
    math(EXPR at "${at} + ${marker_length}")
    string(SUBSTRING "${marked}" ${at} -1 tail)
    if(tail MATCHES "^[ \t]*$")
      set(tail " ${next}")
    endif()
    set(refs "")
    if(tail MATCHES "^[ \t]*(${sect})?(${num})")
      list(APPEND refs "${CMAKE_MATCH_2}")
    endif()
    section_numbers("${tail}" more)
    list(APPEND refs ${more})
    list(REMOVE_DUPLICATES refs)
    foreach(s IN LISTS refs)
      math(EXPR checked "${checked} + 1")
      if(NOT s IN_LIST sections)
        list(APPEND errors "${rel}:${n}: cites ${doc_rel} ${sect}${s}, which has no heading there")
      endif()
    endforeach()
  endforeach()
endforeach()

if(errors)
  list(LENGTH errors error_count)
  string(REPLACE ";" "\n  " report "${errors}")
  message(FATAL_ERROR "check_citations: ${error_count} problem(s):\n  ${report}")
endif()
list(LENGTH files file_count)
message(STATUS "check_citations: ${checked} section references in ${citing_files} of ${file_count} "
               "files resolve against the ${section_count} headings of ${doc_rel}")
