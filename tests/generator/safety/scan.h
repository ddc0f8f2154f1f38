/* test_generator_safety.py::test_planted_files_in_searched_folders: libscan's header. */
int scan_twice(int x);
