# Decides whether the CUDA backend is built (AMKL_CUDA = AUTO | ON | OFF) and finds the
# CUTLASS/CuTe headers. AUTO builds it when nvcc and the CUTLASS headers are both found.

function(amkl_find_cutlass out)
  if(AMKL_CUTLASS_INCLUDE_DIR AND EXISTS "${AMKL_CUTLASS_INCLUDE_DIR}/cute/tensor.hpp")
    set(${out} "${AMKL_CUTLASS_INCLUDE_DIR}" PARENT_SCOPE)
    return()
  endif()
  # The nvidia-cutlass package, installed by scripts/setup into .venv (or any python3).
  file(GLOB candidates
       "${CMAKE_CURRENT_SOURCE_DIR}/.venv/lib/python3*/site-packages/cutlass_library/source/include")
  # The interpreter that runs the build first: under `pip install .` (scikit-build-core sets
  # Python_EXECUTABLE / Python3_EXECUTABLE) that is the build environment holding nvidia-cutlass.
  set(interpreters)
  foreach(var Python3_EXECUTABLE Python_EXECUTABLE PYTHON_EXECUTABLE)
    if(${var})
      list(APPEND interpreters "${${var}}")
    endif()
  endforeach()
  list(APPEND interpreters "${CMAKE_CURRENT_SOURCE_DIR}/.venv/bin/python3" "python3")
  foreach(py IN LISTS interpreters)
    execute_process(
      COMMAND ${py} -c "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source', 'include'))"
      OUTPUT_VARIABLE found OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      list(APPEND candidates "${found}")
    endif()
  endforeach()
  foreach(dir IN LISTS candidates)
    if(EXISTS "${dir}/cute/tensor.hpp")
      set(${out} "${dir}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

set(AMKL_WITH_CUDA OFF)
string(TOUPPER "${AMKL_CUDA}" _amkl_cuda_mode)
if(NOT _amkl_cuda_mode STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  amkl_find_cutlass(_amkl_cutlass)
  if(CMAKE_CUDA_COMPILER AND _amkl_cutlass)
    set(AMKL_WITH_CUDA ON)
    set(AMKL_CUTLASS_INCLUDE_DIR "${_amkl_cutlass}" CACHE PATH "" FORCE)
  elseif(_amkl_cuda_mode STREQUAL "ON")
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "AMKL_CUDA=ON but no CUDA compiler (nvcc) was found")
    endif()
    message(FATAL_ERROR "AMKL_CUDA=ON but the CUTLASS headers were not found: run scripts/setup "
                        "(installs nvidia-cutlass into .venv) or set AMKL_CUTLASS_INCLUDE_DIR")
  elseif(CMAKE_CUDA_COMPILER)
    # nvcc is here but the headers are not: say so loudly rather than quietly building CPU-only.
    message(WARNING "amkl: nvcc found (${CMAKE_CUDA_COMPILER}) but not the CUTLASS headers, so "
                    "the CUDA kernels are NOT built. Install nvidia-cutlass into the Python that "
                    "runs the build, or set AMKL_CUTLASS_INCLUDE_DIR (AMKL_CUDA=OFF silences this).")
  else()
    message(STATUS "amkl: CUDA backend skipped (nvcc: '${CMAKE_CUDA_COMPILER}', CUTLASS: '${_amkl_cutlass}')")
  endif()
endif()

if(AMKL_WITH_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES OFF)  # we pass -gencode ourselves (sm_90a)
  endif()
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
endif()

# Adds the CUDA backend's sources to `target`.
function(amkl_add_cuda_backend target)
  file(GLOB_RECURSE cu_sources CONFIGURE_DEPENDS
       "${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cu" "${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cpp")
  list(FILTER cu_sources EXCLUDE REGEX "cuda_unavailable\\.cpp$")
  if(AMKL_SM90_MEASURE_BF16_D128_ONLY)
    # Measurement builds only (bench/ab_build.sh): the Hopper forward for bf16, d = 128 alone,
    # so that a sweep of kernel variants builds in a fraction of the time.
    list(FILTER cu_sources EXCLUDE REGEX "/sm90/fwd_[a-z0-9_]+\\.cu$")
    list(APPEND cu_sources "${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/sm90/fwd_bf16_d128.cu")
    target_compile_definitions(${target} PRIVATE AMKL_SM90_MEASURE_BF16_D128_ONLY=1)
  endif()
  target_sources(${target} PRIVATE ${cu_sources})
  target_include_directories(${target} SYSTEM PRIVATE "${AMKL_CUTLASS_INCLUDE_DIR}")
  target_compile_definitions(${target} PRIVATE AMKL_WITH_CUDA=1)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a -DNDEBUG -O3
      --expt-relaxed-constexpr --expt-extended-lambda -Xptxas=--warn-on-local-memory-usage>)
  # Register spills are reported as warnings (a few bytes of loop state, see bench/NOTES.md);
  # a serialized WGMMA pipeline fails the build.
  set_target_properties(${target} PROPERTIES
    CUDA_COMPILER_LAUNCHER "${CMAKE_CURRENT_SOURCE_DIR}/cmake/ptxas_guard.sh")
  target_link_libraries(${target} PUBLIC CUDA::cudart_static)
endfunction()
