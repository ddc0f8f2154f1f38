/* test_generator_safety.py::test_paths_with_make_and_shell_syntax: found through -I. */
#define DYL_EXTRA_WORK 1
