weft_add_test(test_cli_errors SOURCES test_cli_errors.cpp LABELS cli)
